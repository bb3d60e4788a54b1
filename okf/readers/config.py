"""Reader configuration: model profiles per role, loaded from flags > environment > config file > defaults.

No model configured anywhere means the offline reader. API keys are never part of a configuration: a profile
names the environment variable that holds its key (``api_key_env``) and the key is read at call time.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from okf.errors import ConfigError
from okf.readers.base import Role

ROLES: tuple[Role, ...] = ("selector", "judge", "answerer", "extractor", "assessor", "describer")
# The roles navigate and ask use; a reader's name lists the others only when they have a model.
NAVIGATION_ROLES: tuple[Role, ...] = ("selector", "judge", "answerer")
# A role's max_tokens when neither the role nor the top level sets one: the extractor lists many rules per reply,
# the describer writes a sentence and key terms for each concept of a batch.
ROLE_MAX_TOKENS: dict[str, int] = {"extractor": 4096, "describer": 2048}
PROFILE_FIELDS = ("model", "base_url", "api_key_env", "temperature", "max_tokens")
ENV_VARS = {  # environment variable -> configuration key
    "OKF_MODEL": "model",
    "OKF_SELECTOR_MODEL": "selector.model",
    "OKF_JUDGE_MODEL": "judge.model",
    "OKF_ANSWER_MODEL": "answerer.model",
    "OKF_EXTRACT_MODEL": "extractor.model",
    "OKF_ASSESS_MODEL": "assessor.model",
    "OKF_DESCRIBE_MODEL": "describer.model",
    "OPENAI_BASE_URL": "base_url",
}
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal"}


class Profile(BaseModel):
    """The model one role talks to. Holds the *name* of the key's environment variable, never the key."""

    model_config = ConfigDict(extra="forbid")

    model: str
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint; None is api.openai.com.")
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_tokens: int = Field(default=1024, gt=0)

    @property
    def host(self) -> str:
        """``host[:port]`` of the endpoint, without credentials or path (safe to print)."""
        if not self.base_url:
            return "api.openai.com"
        parts = urlsplit(self.base_url)
        host = parts.hostname or "?"
        return f"{host}:{parts.port}" if parts.port else host

    @property
    def is_local(self) -> bool:
        """True for endpoints on this machine, which need no API key."""
        return bool(self.base_url) and (urlsplit(self.base_url or "").hostname or "") in LOCAL_HOSTS


class _RoleOverrides(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = None
    max_tokens: int | None = Field(default=None, gt=0)


class ReaderConfig(BaseModel):
    """Everything that chooses and drives a reader. Top-level profile fields apply to every role."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = Field(default=0.0, description="Sampling temperature of every role's calls.")
    max_tokens: int = Field(
        default=1024,
        gt=0,
        description="Completion tokens per call (the extractor's 4096 and the describer's 2048 unless set).",
    )
    selector: _RoleOverrides = Field(default_factory=_RoleOverrides)
    judge: _RoleOverrides = Field(default_factory=_RoleOverrides)
    answerer: _RoleOverrides = Field(default_factory=_RoleOverrides)
    extractor: _RoleOverrides = Field(default_factory=_RoleOverrides)
    assessor: _RoleOverrides = Field(default_factory=_RoleOverrides)
    describer: _RoleOverrides = Field(default_factory=_RoleOverrides)
    timeout: float = Field(
        default=60.0, gt=0, description="Seconds per attempt of a model call (connect, send, each read)."
    )
    deadline: float | None = Field(default=None, gt=0, description="Seconds for all calls of one reader.")
    concurrency: int = Field(default=4, ge=1, description="Model calls in flight at most, all roles together.")
    max_retries: int = Field(
        default=4,
        ge=0,
        description="Retries of a call on 408, 409, 429, 5xx, timeouts and lost connections "
        "(the openai SDK's retries, with its backoff and the server's Retry-After).",
    )
    retry_after_cap: float = Field(
        default=30.0, ge=0, description="Longest Retry-After waited, seconds; a longer one fails the call at once."
    )
    json_mode: bool = Field(default=True, description="Ask for response_format=json_object.")
    cache: bool = Field(default=True, description="Reuse judgments (judge) and descriptions (describer) across runs.")
    cache_dir: Path | None = Field(default=None, description="Judgment cache directory; see docs/models.md.")

    def profile(self, role: Role) -> Profile | None:
        """A role's profile (its overrides, then top-level fields); None when it has no model."""
        overrides = getattr(self, role)
        values = {
            name: getattr(overrides, name) if getattr(overrides, name) is not None else getattr(self, name)
            for name in PROFILE_FIELDS
        }
        if overrides.max_tokens is None and "max_tokens" not in self.model_fields_set and role in ROLE_MAX_TOKENS:
            values["max_tokens"] = ROLE_MAX_TOKENS[role]
        return Profile(**values) if values["model"] else None

    def only(self, role: Role) -> ReaderConfig:
        """This configuration for ``role`` alone: its profile resolved into its table, every other role and
        the top-level model unset (so a reader made from it checks and names that role only)."""
        profile = self.profile(role)
        update: dict[str, Any] = {name: _RoleOverrides() for name in ROLES}
        update["model"] = None
        if profile is not None:
            update[role] = _RoleOverrides(**profile.model_dump())
        return self.model_copy(update=update)

    @property
    def configured(self) -> bool:
        """True when at least one role has a model."""
        return any(self.profile(role) for role in ROLES)

    @classmethod
    def load(
        cls,
        flags: Mapping[str, Any] | None = None,
        *,
        env: Mapping[str, str] | None = None,
        config_file: str | os.PathLike[str] | None = None,
    ) -> ReaderConfig:
        """Merge defaults < config file < environment < ``flags`` (dotted keys like ``judge.model``)."""
        env = os.environ if env is None else env
        flags = {k: v for k, v in (flags or {}).items() if v is not None}
        path = config_file or flags.pop("config", None) or env.get("OKF_CONFIG")
        merged: dict[str, Any] = {}
        if path:
            merged.update(_flatten(read_config_file(Path(path))))
        merged.update({key: env[var] for var, key in ENV_VARS.items() if env.get(var)})
        merged.update(flags)
        return cls.from_flat(merged, source=str(path) if path else "the configuration")

    @classmethod
    def from_flat(cls, flat: Mapping[str, Any], *, source: str = "the configuration") -> ReaderConfig:
        """Build from dotted keys, turning validation errors into one ConfigError naming key and fix."""
        nested: dict[str, Any] = {}
        for key, value in flat.items():
            if "." in key:
                role, name = key.split(".", 1)
                nested.setdefault(role, {})[name] = value
            else:
                nested[key] = value
        try:
            config = cls(**nested)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
            raise ConfigError(
                f"invalid reader setting in {source}: {problems}",
                fix="see docs/models.md for the settings and their types",
            ) from None
        for role in ROLES:
            profile = config.profile(role)
            if profile and profile.base_url:
                parts = urlsplit(profile.base_url)
                if parts.scheme not in ("http", "https") or not parts.hostname:
                    raise ConfigError(
                        f"invalid base URL for the {role}: {profile.base_url!r}",
                        fix="give an http(s) URL such as http://localhost:11434/v1",
                    )
        return config


def read_config_file(path: Path) -> dict[str, Any]:
    """A TOML config file as a dict (top-level keys, and one table per role: [selector], [judge], ...)."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(
            f"config file not found: {path}", fix="pass an existing file to --config or OKF_CONFIG"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}", fix="fix the syntax; see docs/models.md") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}", fix="check the path") from None


_TABLE_ALIASES = {"answer": "answerer", "extract": "extractor", "assess": "assessor", "describe": "describer"}


def _flatten(data: Mapping[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        key = _TABLE_ALIASES.get(key, key)  # [answer] reads like the flag --answer-model
        if key in ROLES and isinstance(value, Mapping):
            flat.update({f"{key}.{name}": inner for name, inner in value.items()})
        else:
            flat[key] = value
    return flat
