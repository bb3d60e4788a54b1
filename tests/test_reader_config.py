"""Reader configuration: precedence, profiles, errors with fixes, make_reader and the CLI options."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from okf.cli.options import reader_from_options, reader_options
from okf.errors import ConfigError
from okf.readers import LLMReader, OfflineReader, ReaderConfig, make_reader
from okf.readers.base import Verdict
from okf.readers.cache import JudgmentCache, default_cache_dir, judgment_key

ENV_NAMES = (
    "OKF_MODEL",
    "OKF_SELECTOR_MODEL",
    "OKF_JUDGE_MODEL",
    "OKF_ANSWER_MODEL",
    "OPENAI_BASE_URL",
    "OKF_CONFIG",
    "OPENAI_API_KEY",
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)


def write_toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "okf.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_no_model_anywhere_means_offline() -> None:
    assert isinstance(make_reader(), OfflineReader)
    assert isinstance(make_reader(ReaderConfig()), OfflineReader)


def test_flags_beat_env_beat_file(tmp_path: Path) -> None:
    path = write_toml(
        tmp_path,
        'model = "file-model"\nbase_url = "http://localhost:1/v1"\ntimeout = 9\n[judge]\nmodel = "file-judge"\n',
    )
    env = {"OKF_CONFIG": str(path), "OKF_MODEL": "env-model", "OKF_JUDGE_MODEL": "env-judge"}
    config = ReaderConfig.load({"judge.model": "flag-judge"}, env=env)
    assert config.profile("judge").model == "flag-judge"  # type: ignore[union-attr]
    assert config.profile("selector").model == "env-model"  # type: ignore[union-attr]
    assert config.profile("selector").base_url == "http://localhost:1/v1"  # type: ignore[union-attr]
    assert config.timeout == 9
    assert ReaderConfig.load({}, env={"OKF_CONFIG": str(path)}).profile("judge").model == "file-judge"  # type: ignore[union-attr]


def test_role_tables_override_top_level(tmp_path: Path) -> None:
    path = write_toml(
        tmp_path,
        'model = "small"\n[answer]\nmodel = "big"\nbase_url = "http://127.0.0.1:9/v1"\nmax_tokens = 2000\n',
    )
    config = ReaderConfig.load({"config": str(path)}, env={})
    answerer, judge = config.profile("answerer"), config.profile("judge")
    assert answerer and answerer.model == "big" and answerer.max_tokens == 2000 and answerer.is_local
    assert judge and judge.model == "small" and judge.base_url is None and judge.host == "api.openai.com"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("model = ", "not valid TOML"),
        ('modle = "x"', "modle"),
        ("timeout = -1", "timeout"),
        ('model = "m"\nbase_url = "ftp://x"', "invalid base URL"),
        ("[judge]\nmodel = 3", "judge.model"),
    ],
)
def test_bad_config_files_name_the_problem_and_a_fix(tmp_path: Path, text: str, needle: str) -> None:
    path = write_toml(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        ReaderConfig.load({"config": str(path)}, env={})
    assert needle in str(info.value) and info.value.fix


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        ReaderConfig.load({}, env={"OKF_CONFIG": str(tmp_path / "nope.toml")})


def test_remote_model_without_key_is_a_config_error_with_a_fix() -> None:
    with pytest.raises(ConfigError) as info:
        make_reader(ReaderConfig(model="gpt-4o-mini"))
    assert "OPENAI_API_KEY" in str(info.value) and "--api-key-env" in str(info.value)


def test_llm_reader_name_and_partial_roles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real-000000")
    reader = make_reader(ReaderConfig(model="gpt-4o-mini"))
    assert isinstance(reader, LLMReader) and reader.name == "openai:gpt-4o-mini@api.openai.com"
    mixed = make_reader(ReaderConfig(judge={"model": "j"}, base_url="http://user:pw@localhost:8080/v1?x=1"))
    assert mixed.name == ("openai:selector=offline,judge=j@localhost:8080,answerer=offline")
    assert "pw" not in mixed.name


def test_config_never_holds_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SHOULD-NOT-APPEAR")
    config = ReaderConfig.load({"model": "m"}, env={"OPENAI_API_KEY": "sk-test-SHOULD-NOT-APPEAR"})
    assert "SHOULD-NOT-APPEAR" not in config.model_dump_json()
    with pytest.raises(ConfigError):
        ReaderConfig.load({"api_key": "sk-x"}, env={})  # there is no such setting: keys live in the env


def test_cache_dir_resolution(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OKF_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "okf" / "judgments"
    monkeypatch.setenv("OKF_CACHE_DIR", str(tmp_path / "own"))
    assert default_cache_dir() == tmp_path / "own" / "judgments"


def test_cache_round_trip_skips_failures_and_survives_corruption(tmp_path: Path) -> None:
    cache = JudgmentCache(tmp_path)
    key = judgment_key("m", "judge.v1", "q", "a" * 64)
    assert key != judgment_key("m2", "judge.v1", "q", "a" * 64)
    cache.put(key, Verdict(id="x", relevant=None, failed=True), model="m", prompt_version="judge.v1")
    assert cache.get(key, "x") is None
    cache.put(key, Verdict(id="x", relevant=True, reason="r"), model="m", prompt_version="judge.v1")
    assert cache.get(key, "renamed") == Verdict(id="renamed", relevant=True, grade="relevant", reason="r", cached=True)
    cache.put(key, Verdict(id="x", relevant=True, grade="partial", reason="p"), model="m", prompt_version="judge.v1")
    assert cache.get(key, "x") == Verdict(id="x", relevant=True, grade="partial", reason="p", cached=True)
    next(tmp_path.rglob(f"{key}.json")).write_text("{broken", encoding="utf-8")
    assert cache.get(key, "x") is None
    assert not list(tmp_path.rglob(".tmp-*"))


def test_reader_options_cli() -> None:
    @click.command()
    @reader_options
    def cmd(**kwargs: object) -> None:
        click.echo(reader_from_options(**kwargs).name)

    runner = CliRunner()
    assert runner.invoke(cmd, []).output.strip() == "offline"
    result = runner.invoke(
        cmd,
        [
            "--model",
            "m",
            "--base-url",
            "http://localhost:11434/v1",
            "--no-cache",
            "--timeout",
            "5",
            "--concurrency",
            "2",
        ],
    )
    assert result.exit_code == 0 and result.output.strip() == "openai:m@localhost:11434"
    help_text = runner.invoke(cmd, ["--help"]).output
    assert "stand-in for a model" in help_text and "--judge-model" in help_text and "--no-cache" in help_text
    with pytest.raises(ConfigError, match="concurrency"):
        reader_from_options(model="m", concurrency=0)
    refused = runner.invoke(cmd, ["--concurrency", "0"])  # the flag's bound is the field's (okf.settings)
    assert refused.exit_code == 2 and "--concurrency" in refused.output
