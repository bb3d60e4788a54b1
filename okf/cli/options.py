"""The reader options shared by every command that reads with a model (navigate, ask, eval, mcp), and the
describer options of ``okf compile``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from okf.cli.flags import setting_option, settings_options  # noqa: F401 - handed on to the commands
from okf.reader_settings import COMPILE_FLAGS, READER_FLAGS, READER_SETTINGS
from okf.readers.base import Reader
from okf.readers.config import ReaderConfig
from okf.readers.factory import make_reader
from okf.setting import Setting

if TYPE_CHECKING:
    from okf.requirements.cache import ExtractionCache

F = TypeVar("F", bound=Callable[..., Any])

READER_OPTION_NAMES = (
    "model",
    "selector_model",
    "judge_model",
    "answer_model",
    "base_url",
    "api_key_env",
    "config",
    "timeout",
    "concurrency",
    "no_cache",
)


_OPTIONS = [
    click.option(
        "--model",
        metavar="NAME",
        default=None,
        help="Model for every role (env OKF_MODEL). With no model configured anywhere, okf uses the "
        "offline reader, a deterministic stand-in for a model that matches the question's words.",
    ),
    click.option(
        "--selector-model",
        metavar="NAME",
        default=None,
        help="Model that picks signposts to open (env OKF_SELECTOR_MODEL).",
    ),
    click.option(
        "--judge-model",
        metavar="NAME",
        default=None,
        help="Model that judges concept bodies (env OKF_JUDGE_MODEL).",
    ),
    click.option(
        "--answer-model",
        metavar="NAME",
        default=None,
        help="Model that drafts answers (env OKF_ANSWER_MODEL).",
    ),
    click.option(
        "--base-url",
        metavar="URL",
        default=None,
        help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (env OPENAI_BASE_URL).",
    ),
    click.option(
        "--api-key-env",
        metavar="VAR",
        default=None,
        help="Environment variable holding the API key (default OPENAI_API_KEY). Keys are never "
        "taken on the command line.",
    ),
    click.option(
        "--config",
        "config",
        metavar="FILE",
        default=None,
        type=click.Path(dir_okay=False, path_type=str),
        help="TOML file with reader settings (env OKF_CONFIG); see docs/models.md.",
    ),
    *(setting_option(setting) for setting in READER_SETTINGS if setting.name in READER_FLAGS),
    click.option(
        "--no-cache",
        is_flag=True,
        default=False,
        help="Do not reuse or store judgments in the judgment cache.",
    ),
]


def reader_options(f: F) -> F:
    """Add the reader options (--model, --base-url, ...) to a click command."""
    for option in reversed(_OPTIONS):
        f = option(f)
    return f


def extract_model_option(f: F) -> F:
    """``--extract-model``: the model that reads rules out of sections (role ``extractor``)."""
    return click.option(
        "--extract-model",
        metavar="NAME",
        default=None,
        help="Model that extracts requirements from sections (env OKF_EXTRACT_MODEL).",
    )(f)


def assess_model_option(f: F) -> F:
    """``--assess-model``: the compliance judge (role ``assessor``)."""
    return click.option(
        "--assess-model",
        metavar="NAME",
        default=None,
        help="Model that decides applicability and judges compliance (env OKF_ASSESS_MODEL).",
    )(f)


def reader_config_from_options(**kwargs: Any) -> ReaderConfig:
    """The reader configuration the options ask for (flags > environment > config file > defaults); the
    fields of ReaderConfig check the values (the CLI's option types already hold them to the same bounds)."""
    flags: dict[str, Any] = {
        "model": kwargs.get("model"),
        "selector.model": kwargs.get("selector_model"),
        "judge.model": kwargs.get("judge_model"),
        "answerer.model": kwargs.get("answer_model"),
        "extractor.model": kwargs.get("extract_model"),
        "assessor.model": kwargs.get("assess_model"),
        "describer.model": kwargs.get("describe_model"),
        "base_url": kwargs.get("base_url"),
        "api_key_env": kwargs.get("api_key_env"),
        "config": kwargs.get("config"),
        "timeout": kwargs.get("timeout"),
        "concurrency": kwargs.get("concurrency"),
        "cache": False if kwargs.get("no_cache") else None,
    }
    return ReaderConfig.load(flags)


_DESCRIBER_OPTIONS = [
    click.option(
        "--model",
        metavar="NAME",
        default=None,
        help="Model that writes concept descriptions, tags and group titles (env OKF_MODEL). With no "
        "model configured anywhere, compile is extractive and deterministic.",
    ),
    click.option(
        "--describe-model",
        metavar="NAME",
        default=None,
        help="Model for descriptions and titles only, over --model (env OKF_DESCRIBE_MODEL).",
    ),
    *(o for o in _OPTIONS[4:9]),  # --base-url, --api-key-env, --config, --timeout, --concurrency
    click.option(
        "--no-cache",
        is_flag=True,
        default=False,
        help="Do not reuse or store descriptions in the description cache (see docs/compile.md).",
    ),
    click.option(
        "--offline",
        is_flag=True,
        default=False,
        help="Ignore any configured model (flags, OKF_MODEL, config file): the extractive compile.",
    ),
]


def describer_options(f: F) -> F:
    """The options that choose the model writing a compiled bundle's signposts (``okf compile``)."""
    for option in reversed(_DESCRIBER_OPTIONS):
        f = option(f)
    return f


def extraction_reader_from_options(**kwargs: Any) -> tuple[Any, ExtractionCache | None]:
    """The reader the options ask for (okf requirements, okf comply) and the extraction cache its model's
    requirements are kept in (None offline, or with --no-cache): read sections are not read again."""
    from okf.requirements.cache import ExtractionCache
    from okf.requirements.sections import extractor_identity

    config = reader_config_from_options(**kwargs)
    reader = make_reader(config)
    identity = extractor_identity(reader)  # type: ignore[arg-type]
    cache = ExtractionCache() if config.cache and not identity.startswith("offline") else None
    return reader, cache


def reader_from_options(**kwargs: Any) -> Reader:
    """The reader the options ask for; extra keyword arguments (other options) are ignored."""
    return make_reader(reader_config_from_options(**kwargs))


def budget_options(f: F) -> F:
    """The navigation budget options (okf.models.Budgets), shared by navigate, ask and eval."""
    from okf.reader_settings import BUDGETS  # made on first use: okf compile has no budgets

    for setting in reversed(BUDGETS):
        f = setting_option(setting)(f)
    return f


def budgets_from_options(options: dict[str, Any]) -> dict[str, Any]:
    """Pop the budget options out of ``options``; return the ones the user set."""
    from okf.reader_settings import BUDGETS

    values = {setting.name: options.pop(setting.name, None) for setting in BUDGETS}
    return {key: value for key, value in values.items() if value is not None}


def compile_settings() -> tuple[Setting, ...]:
    """The CompileOptions fields okf compile takes as flags (the others are flags of their own)."""
    from okf.compile.state import CompileOptions

    return tuple(Setting(CompileOptions, name) for name in COMPILE_FLAGS)


def compile_setting_options(f: F) -> F:
    """``--max-words``, ``--max-chars`` and ``--fanout`` of ``okf compile``, from okf.compile.CompileOptions."""
    return settings_options(*compile_settings())(f)


def angles_option(f: F) -> F:
    """``--angles auto|N|off``: multi-angle orchestration of navigation (okf.settings.NavigationSettings;
    docs/navigate.md, "Angles")."""
    from okf.settings import ANGLES  # the navigation settings import the orchestrator: not for okf compile

    return setting_option(ANGLES, default=ANGLES.default)(f)


def angles_from_options(options: dict[str, Any]) -> str:
    """Pop ``--angles`` out of ``options`` and check it (a usage error naming the fix when bad)."""
    from okf.orchestrate import parse_angles
    from okf.settings import ANGLES

    return str(parse_angles(options.pop("angles", ANGLES.default)))
