"""okf compile --model: descriptions, tags and group titles written by a describer model through the real openai
SDK against the loopback server; the content-hash gate, the extractive fallback on every kind of fault, and the
offline compile left exactly as it was."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from okf.cli import main
from okf.compile import CompileOptions, compile_bundle
from okf.compile.model_cache import DescriptionCache
from okf.compile.model_describe import describer_label
from okf.errors import ConfigError, ModelOutputError
from okf.readers import LLMReader, ReaderConfig
from okf.readers.describing import ConceptOffer, GroupOffer, parse_descriptions, parse_titles
from okf.testing import LoopbackServer, Reply, describer_rule
from okf.testing.server import request_payload

REPO = Path(__file__).resolve().parents[1]
AT = datetime(2026, 1, 1, tzinfo=UTC)
OPTIONS = CompileOptions(fanout=4, max_words=60, timestamp=AT, title="Corpus")
TOPICS = ["apple orchard fruit harvest", "guitar band album song", "river boat bridge water"]
CONTRACT = """SUPPLY AGREEMENT

This Supply Agreement is made between Acme Corp and Beta LLC on the date written below by both parties.

1. Delivery. The supplier shall deliver the goods to the warehouse named by the buyer within ten days of
each purchase order, packed for carriage by road and labelled with the order number.

2. Payment. The buyer shall pay each invoice within thirty days of receipt by bank transfer to the account
the supplier names in writing, without set-off or deduction of any kind.
"""


def write_corpus(root: Path, entries: int = 10) -> Path:
    """Ten (``entries``) short documents in one folder (topic groups at fan-out 4), a rulebook of twelve
    sections (range groups inside it) and a plain-text contract (rendered after the model's pass)."""
    src = root / "src"
    (src / "wiki").mkdir(parents=True)
    for i in range(entries):
        words = TOPICS[i % 3].split()
        (src / "wiki" / f"entry{i:02d}.md").write_text(
            f"# Entry {i} on {words[0]}\n\nThe {words[0]} and the {words[1]} are described here together with "
            f"the {words[2]} and the {words[3]}, as seen in entry number {i} of the collection.\n"
        )
    sections = "".join(
        f"## Rule {n} on {TOPICS[n % 3].split()[1]}\n\nThe operator must keep the {TOPICS[n % 3].split()[2]} "
        f"records of item {n} for seven years and report them to the regulator each quarter in writing, "
        f"signed by an officer who holds the {TOPICS[n % 3].split()[3]} licence.\n\n"
        for n in range(1, 13)
    )
    (src / "rulebook.md").write_text("# Rulebook\n\n" + sections)
    (src / "contract.txt").write_text(CONTRACT)
    return src


def describer(server: LoopbackServer, **overrides: Any) -> LLMReader:
    settings: dict[str, Any] = {
        "model": "describe-model",
        "base_url": server.base_url,
        "timeout": 5.0,
        "max_retries": 1,
        "concurrency": 3,
    }
    settings.update(overrides)
    return LLMReader(ReaderConfig(**settings))


def tasks(server: LoopbackServer) -> list[dict[str, Any]]:
    """The okf payloads the server received (first user message of each chat request)."""
    return [request_payload(r.body or {}) for r in server.completions]


def described_ids(server: LoopbackServer) -> list[str]:
    return [c["id"] for p in tasks(server) if p.get("task") == "describe" for c in p["concepts"]]


def tree(root: Path, *, content_only: bool = False) -> dict[str, bytes]:
    """Every file of a bundle (the stat cache is per-machine bookkeeping; ``content_only``: concept and index
    files alone)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and p.name != "stat-cache.json"
        and (not content_only or (".okf" not in p.parts and p.name != "log.md"))
    }


def frontmatter(path: Path) -> dict[str, Any]:
    head = path.read_text(encoding="utf-8").split("---\n")[1]
    out: dict[str, Any] = {}
    for line in head.splitlines():
        if line.startswith(("description:", "tags:", "title:")):
            key, value = line.split(":", 1)
            out[key] = json.loads(value.strip())
    return out


def concept_files(out: Path) -> list[Path]:
    return [p for p in sorted(out.rglob("*.md")) if p.name not in ("index.md", "log.md")]


# --- the model writes signposts -------------------------------------------------------------------------


def test_model_writes_descriptions_tags_and_group_titles(tmp_path: Path) -> None:
    src, out = write_corpus(tmp_path), tmp_path / "out"
    with LoopbackServer(rule=describer_rule(), latency=0.02) as server:
        report = compile_bundle(
            [src], out, options=OPTIONS, describer=describer(server), cache=DescriptionCache(tmp_path / "cache")
        )
        in_flight = server.max_in_flight
    concepts = concept_files(out)
    assert report.model is not None and report.model.concepts == len(concepts) == report.concepts
    assert report.model.concepts_failed == report.model.groups_failed == 0
    for path in concepts:
        meta = frontmatter(path)
        assert meta["description"].startswith("Model: ") and meta["tags"][0] == "model tag", path
        assert meta["description"] != meta["title"]
    # Topic groups of the wiki folder and range groups of the rulebook: titled by the model, told apart.
    wiki = (out / "wiki" / "index.md").read_text(encoding="utf-8")
    topic_titles = re.findall(r"^\* \[([^\]]+)\]\(topic-", wiki, flags=re.MULTILINE)
    assert len(topic_titles) >= 2 and all(t.startswith("Topic ") for t in topic_titles)
    assert len(set(topic_titles)) == len(topic_titles)
    rulebook = (out / "rulebook" / "index.md").read_text(encoding="utf-8")
    assert re.search(r"^\* \[Sections? [^\]]*: Topic ", rulebook, flags=re.MULTILINE), rulebook
    assert report.model.groups >= 3
    # The index entry of a concept repeats its model description (OKF §8); its tags name it to the selector.
    assert "Model: 2. Payment. The buyer shall pay" in (out / "contract" / "index.md").read_text(encoding="utf-8")
    # Bounded concurrency (the reader's), and every call went through the describer prompt.
    assert 1 < in_flight <= 3
    system = server.completions[0].body["messages"][0]["content"]  # type: ignore[index]
    assert "signposts of a knowledge bundle" in system
    log = (out / "log.md").read_text(encoding="utf-8")
    assert (
        f"* **Model**: `describe-model@127.0.0.1:{server.base_url.split(':')[2].split('/')[0]}` wrote the "
        f"descriptions and tags of {len(concepts)} concepts" in log
    )
    manifest = json.loads((out / ".okf" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["options"]["describer"].endswith(" describe.v1") and manifest["group_titles"]
    from okf.bundle import Bundle
    from okf.checker import check

    assert not check(Bundle.open(out)).errors


def test_recompile_with_the_same_model_makes_no_call_and_writes_nothing(tmp_path: Path) -> None:
    src, out = write_corpus(tmp_path), tmp_path / "out"
    with LoopbackServer(rule=describer_rule()) as server:
        reader = describer(server)
        compile_bundle([src], out, options=OPTIONS, describer=reader, cache=DescriptionCache(tmp_path / "c"))
        first = len(server.completions)
        before = {
            p: (p.read_bytes(), p.stat().st_mtime_ns)
            for p in out.rglob("*")
            if p.is_file() and p.name != "stat-cache.json"
        }
        # Sources written just now are "racy" for the stat cache: the compile runs every step, and still
        # neither asks nor writes. Without the description cache too (folder titles live in the manifest).
        again = compile_bundle([src], out, options=OPTIONS, describer=reader, cache=DescriptionCache(tmp_path / "c"))
        bare = compile_bundle([src], out, options=OPTIONS, describer=reader, cache=None)
        assert len(server.completions) == first
    assert not again.changed and not bare.changed
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in before} == before


def test_only_changed_concepts_are_asked_again(tmp_path: Path) -> None:
    src, out = write_corpus(tmp_path), tmp_path / "out"
    cache = DescriptionCache(tmp_path / "cache")
    with LoopbackServer(rule=describer_rule()) as server:
        reader = describer(server)
        compile_bundle([src], out, options=OPTIONS, describer=reader, cache=cache)
        first = len(server.completions)
        text = (src / "rulebook.md").read_text()
        (src / "rulebook.md").write_text(text.replace("Rule 5 on boat\n\nThe operator", "Rule 5 on boat\n\nThe pilot"))
        report = compile_bundle([src], out, options=OPTIONS, describer=reader, cache=cache)
        asked = [p for p in tasks(server)[first:] if p.get("task") == "describe"]
        forced = compile_bundle(
            [src], out, options=OPTIONS.model_copy(update={"force": True}), describer=reader, cache=cache
        )
        after_force = len(server.completions)
    assert [c["title"] for p in asked for c in p["concepts"]] == ["Rule 5 on boat"]
    assert report.model is not None and report.model.concepts_cached == report.model.concepts - 1
    assert (
        "The pilot must"
        in frontmatter(
            out
            / "rulebook"
            / next(p.relative_to(out / "rulebook").as_posix() for p in (out / "rulebook").rglob("rule-5-*.md"))
        )["description"]
    )
    # --force rebuilds every source; the cache answers for every concept and group.
    assert forced.model is not None and forced.model.concepts == forced.model.concepts_cached
    assert after_force == first + len(asked) + sum(1 for p in tasks(server)[first:] if p.get("task") == "title")


def test_another_model_rebuilds_and_offline_again_is_the_extractive_bundle(tmp_path: Path) -> None:
    src = write_corpus(tmp_path)
    offline, out = tmp_path / "offline", tmp_path / "out"
    compile_bundle([src], offline, options=OPTIONS)
    with LoopbackServer(rule=describer_rule()) as server:
        compile_bundle([src], out, options=OPTIONS, describer=describer(server))
        first = len(described_ids(server))
        compile_bundle([src], out, options=OPTIONS, describer=describer(server, model="another-model"))
        assert len(described_ids(server)) == 2 * first  # the describer is a recorded option: all asked again
    compile_bundle([src], out, options=OPTIONS)
    assert tree(out, content_only=True) == tree(offline, content_only=True)
    manifest = json.loads((out / ".okf" / "manifest.json").read_text(encoding="utf-8"))
    assert "describer" not in manifest["options"] and "group_titles" not in manifest


# --- faults: retried, else the extractive text, counted ---------------------------------------------------


def test_rate_limits_and_server_errors_are_retried(tmp_path: Path) -> None:
    src, out = write_corpus(tmp_path), tmp_path / "out"
    with LoopbackServer([Reply.rate_limited(0.05), Reply.server_error(500)], rule=describer_rule()) as server:
        report = compile_bundle([src], out, options=OPTIONS, describer=describer(server, concurrency=1, max_retries=2))
    assert report.model is not None and report.model.concepts_failed == report.model.groups_failed == 0
    assert report.model.usage.retries >= 2 and report.model.usage.failures == 0
    assert all(frontmatter(p)["description"].startswith("Model: ") for p in concept_files(out))


def _spoiled(spoil: Any, times: int | None = None) -> Any:
    """describer_rule with ``spoil(payload, reply)`` applied to describe replies (the first ``times`` only)."""
    inner, count = describer_rule(), [0]

    def rule(request: dict[str, Any]) -> Any:
        reply = inner(request)
        if request_payload(request).get("task") != "describe" or (times is not None and count[0] >= times):
            return reply
        count[0] += 1
        return spoil(request_payload(request), reply)

    return rule


FAULTS = {  # a fault, and how many replies fail one call (a broken body is asked once more, prose repaired)
    "timeout": (Reply.hang(3.0), 1),
    "malformed JSON": (Reply.malformed(), 2),
    "a reply that is no JSON object": ("Sure, here are the descriptions you asked for.", 2),
}
BAD_REPLIES = {
    "a missing entry": lambda p, r: (
        {"concepts": r["concepts"][:-1]}
        if len(r["concepts"]) > 1
        else {"concepts": [*r["concepts"], {**r["concepts"][0], "index": 1}]}
    ),
    "an unknown id": lambda p, r: {"concepts": [{**c, "index": None, "id": "no/such/concept"} for c in r["concepts"]]},
    "an index not offered": lambda p, r: {"concepts": [{**c, "index": c["index"] + 40} for c in r["concepts"]]},
    "the title as description": lambda p, r: {
        "concepts": [{**c, "description": p["concepts"][c["index"]]["title"]} for c in r["concepts"]]
    },
    "tags that are not a list": lambda p, r: {"concepts": [{**c, "tags": {"a": 1}} for c in r["concepts"]]},
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_failed_call_keeps_the_extractive_text_and_is_counted(tmp_path: Path, fault: str) -> None:
    src, out, offline = write_corpus(tmp_path), tmp_path / "out", tmp_path / "offline"
    compile_bundle([src], offline, options=OPTIONS)
    # Every attempt of the first call fails (max_retries=0); the other calls are answered.
    reply, replies = FAULTS[fault]
    with LoopbackServer([reply] * replies, rule=describer_rule()) as server:
        report = compile_bundle(
            [src], out, options=OPTIONS, describer=describer(server, concurrency=1, max_retries=0, timeout=0.5)
        )
    model = report.model
    assert model is not None and model.concepts_failed >= 1 and model.concepts >= 1
    assert model.usage.failures == 1 and model.errors
    failed = [p for p in concept_files(out) if not frontmatter(p)["description"].startswith("Model: ")]
    assert len(failed) == model.concepts_failed
    for path in failed:  # exactly the extractive signpost: the same file as the offline compile's
        assert path.read_bytes() == (offline / path.relative_to(out)).read_bytes()
    log = (out / "log.md").read_text(encoding="utf-8")
    assert f"{model.concepts_failed} concept{'s' * (model.concepts_failed != 1)} kept the extractive text" in log
    assert any("kept their extractive description" in w for w in report.warnings)


@pytest.mark.parametrize("bad", sorted(BAD_REPLIES))
def test_an_invalid_reply_gets_one_repair_then_falls_back(tmp_path: Path, bad: str) -> None:
    src = write_corpus(tmp_path)
    with LoopbackServer(rule=_spoiled(BAD_REPLIES[bad], times=1)) as server:  # repaired on the retry
        repaired = compile_bundle([src], tmp_path / "a", options=OPTIONS, describer=describer(server, concurrency=1))
        repair_text = server.completions[1].body["messages"][-1]["content"]  # type: ignore[index]
    assert repaired.model is not None and repaired.model.concepts_failed == 0 and repaired.model.usage.retries == 1
    assert "could not be used" in repair_text
    with LoopbackServer(rule=_spoiled(BAD_REPLIES[bad])) as server:  # never valid: every batch falls back
        report = compile_bundle([src], tmp_path / "b", options=OPTIONS, describer=describer(server))
    assert report.model is not None and report.model.concepts == 0 and report.model.concepts_failed == report.concepts
    assert "invalid describer reply after a repair retry" in report.model.errors[0]
    assert not any(frontmatter(p)["description"].startswith("Model: ") for p in concept_files(tmp_path / "b"))


def test_when_every_call_fails_the_signposts_are_the_extractive_ones(tmp_path: Path) -> None:
    src, out, offline = write_corpus(tmp_path, entries=80), tmp_path / "out", tmp_path / "offline"
    compile_bundle([src], offline, options=OPTIONS)
    with LoopbackServer(rule=lambda request: Reply.server_error(503)) as server:
        report = compile_bundle([src], out, options=OPTIONS, describer=describer(server, concurrency=1, max_retries=0))
        requests = len(server.completions)
    assert tree(out, content_only=True) == tree(offline, content_only=True)
    model = report.model
    assert model is not None and model.concepts == model.groups == 0
    assert model.concepts_failed == report.concepts and model.groups_failed >= 3
    # A server that keeps failing is not asked on and on: after 8 failed calls in a row (one at a time here)
    # the rest of the compile falls back unasked, group titles included.
    assert requests == 8
    assert any("not asked: 8 describer calls failed in a row" in e for e in model.errors)


def test_an_echoed_api_key_never_reaches_the_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-echo-test-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)

    def echo(request: dict[str, Any]) -> Any:
        reply = describer_rule()(request)
        if request_payload(request).get("task") == "describe":
            reply = {
                "concepts": [
                    {**c, "description": c["description"] + " Key {api_key}.", "tags": [*c["tags"], "{api_key}"]}
                    for c in reply["concepts"]
                ]
            }
        elif "titles" in reply:
            reply = {"titles": [{**t, "title": t["title"] + " {api_key}"} for t in reply["titles"]]}
        return Reply.echo_key(json.dumps(reply))

    src, out, cache = write_corpus(tmp_path), tmp_path / "out", tmp_path / "cache"
    with LoopbackServer(rule=echo) as server:
        result = CliRunner().invoke(
            main,
            [
                "compile",
                str(src),
                "-o",
                str(out),
                "--fanout",
                "4",
                "--max-words",
                "60",
                "--model",
                "m",
                "--base-url",
                server.base_url,
                "--json",
            ],
            env={"OKF_CACHE_DIR": str(cache)},
        )
        sent = server.completions[0].headers["authorization"]
    assert result.exit_code == 0, result.output
    assert secret in sent  # the server did get the key, and echoed it back in every reply
    for root in (out, cache, tmp_path / "out.okf-spare"):
        for path in root.rglob("*"):
            assert not path.is_file() or secret.encode() not in path.read_bytes(), path
    assert secret not in result.output, result.output[result.output.find(secret) - 300 :][:400]
    assert "Key \\*\\*\\*." in (out / "contract" / "index.md").read_text(encoding="utf-8")  # scrubbed in the reply


# --- the CLI ----------------------------------------------------------------------------------------------


def test_cli_compiles_with_a_model_from_flags_env_or_config(tmp_path: Path) -> None:
    src = write_corpus(tmp_path)
    runner = CliRunner()
    with LoopbackServer(rule=describer_rule()) as server:
        flags = runner.invoke(
            main,
            [
                "compile",
                str(src),
                "-o",
                str(tmp_path / "a"),
                "--fanout",
                "4",
                "--describe-model",
                "m",
                "--base-url",
                server.base_url,
                "--concurrency",
                "2",
            ],
            env={"OKF_PROGRESS": "1", "OKF_CACHE_DIR": str(tmp_path / "c1")},
        )
        env = runner.invoke(
            main,
            ["compile", str(src), "-o", str(tmp_path / "b"), "--json"],
            env={"OKF_MODEL": "m", "OPENAI_BASE_URL": server.base_url, "OKF_CACHE_DIR": str(tmp_path / "c2")},
        )
        config = tmp_path / "okf.toml"
        config.write_text(f'[describe]\nmodel = "m"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        toml = runner.invoke(
            main,
            ["compile", str(src), "-o", str(tmp_path / "c"), "--config", str(config), "--no-cache", "--quiet"],
            env={"OKF_CACHE_DIR": str(tmp_path / "c3")},
        )
    assert flags.exit_code == env.exit_code == toml.exit_code == 0, (flags.output, env.output, toml.output)
    assert "Describing concepts" in flags.stderr and "Titling groups" in flags.stderr
    assert re.search(r"m@127\.0\.0\.1:\d+: \d+ concepts described \(0 from cache\)", flags.stdout)
    data = json.loads(env.stdout)
    assert data["model"]["concepts"] == data["concepts"] and data["model"]["describer"].startswith("m@127.0.0.1")
    assert toml.stderr == "" and not (tmp_path / "c3").exists()  # --no-cache: nothing stored
    assert all(frontmatter(p)["description"].startswith("Model: ") for p in concept_files(tmp_path / "c"))


def test_without_a_model_compile_is_todays_output_byte_for_byte(tmp_path: Path) -> None:
    """The committed harborview bundle, compiled by the CLI with no model; and with a model configured in the
    environment but --offline: not one request, the same bytes (.okf included; the manifest names the
    source folder relative to the output, so that one field is set aside, and with it the title index's
    corpus id, the manifest's hash)."""
    source, committed = REPO / "bundles" / "sources" / "harborview", REPO / "bundles" / "harborview"
    if not source.is_dir() or not committed.is_dir():
        pytest.skip("bundles/harborview not present")
    args = ["compile", str(source), "--title", "Harborview", "--timestamp", "2026-01-01T00:00:00Z", "--quiet"]

    def normal(root: Path) -> dict[str, bytes]:
        files = tree(root)
        manifest = json.loads(files.pop(".okf/manifest.json"))
        manifest.pop("source_root")
        titles = json.loads(files.pop(".okf/titles.json"))
        titles.pop("corpus_id")
        return {
            **files,
            ".okf/manifest.json": json.dumps(manifest, sort_keys=True).encode(),
            ".okf/titles.json": json.dumps(titles, sort_keys=True).encode(),
        }

    runner = CliRunner()
    plain = runner.invoke(main, [*args, "-o", str(tmp_path / "plain")])
    with LoopbackServer(rule=describer_rule()) as server:
        forced = runner.invoke(
            main,
            [*args, "-o", str(tmp_path / "forced"), "--offline"],
            env={"OKF_MODEL": "m", "OPENAI_BASE_URL": server.base_url},
        )
        assert server.requests == []
    assert plain.exit_code == forced.exit_code == 0, (plain.output, forced.output)
    assert normal(tmp_path / "plain") == normal(committed) == normal(tmp_path / "forced")


# --- validation of replies ---------------------------------------------------------------------------------


def test_reply_validation() -> None:
    offers = [
        ConceptOffer(index=0, id="a/x", title="Fees and charges", text="t"),
        ConceptOffer(index=1, id="a/y", title="Term and renewal", text="t"),
    ]
    good = {
        "concepts": [
            {"id": "a/y", "description": "The term runs for two years.", "tags": ["term", "Term", " "]},
            {"index": "0", "description": "  Fees are  due monthly in arrears.\n", "tags": "fees"},
        ]
    }
    parsed = parse_descriptions(json.dumps(good), offers)
    assert [(p.id, p.description, p.tags) for p in parsed] == [
        ("a/x", "Fees are due monthly in arrears.", ["fees"]),
        ("a/y", "The term runs for two years.", ["term"]),
    ]
    long = {
        "concepts": [{"index": i, "description": "word " * 80, "tags": [f"t{k}" for k in range(14)]} for i in range(2)]
    }
    clipped = parse_descriptions(json.dumps(long), offers)
    assert len(clipped[0].description) <= 240 and len(clipped[0].tags) == 10
    for bad, needle in [
        ({"concepts": [good["concepts"][0]]}, "no entry for index 0"),
        ({"concepts": good["concepts"] * 2}, "two entries"),
        ({"concepts": [{**c, "tags": ["Fees and Charges"]} for c in good["concepts"]]}, "besides the title"),
        ({"concept": []}, '"concepts" list'),
    ]:
        with pytest.raises(ModelOutputError, match=re.escape(needle)):
            parse_descriptions(json.dumps(bad), offers)
    groups = [GroupOffer(index=0, members=["a"]), GroupOffer(index=1, members=["b"])]
    assert parse_titles('{"titles": [{"index": 1, "title": "Fees."}, {"index": 0, "title": "Term"}]}', groups) == [
        "Term",
        "Fees",
    ]
    for bad_titles, needle in [
        ('[{"index": 0, "title": "Fees"}, {"index": 1, "title": "fees"}]', "same title"),
        ('[{"index": 0, "title": "1.2"}, {"index": 1, "title": "Fees"}]', "in words"),
    ]:
        with pytest.raises(ModelOutputError, match=needle):
            parse_titles('{"titles": ' + bad_titles + "}", groups)


def test_a_remote_model_without_its_key_is_refused_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    src = write_corpus(tmp_path)
    result = CliRunner().invoke(main, ["compile", str(src), "-o", str(tmp_path / "out"), "--model", "gpt-4o-mini"])
    assert result.exit_code == 2 and "no API key for the describer" in result.stderr
    assert not (tmp_path / "out").exists()


def test_the_recorded_describer_names_model_and_host_never_credentials() -> None:
    class Remote:
        def role_identity(self, role: str) -> str:
            return "qwen2.5:7b@https://user:s3cret@models.example.com:8443/v1"

    assert describer_label(Remote()) == "qwen2.5:7b@models.example.com:8443 describe.v1"  # type: ignore[arg-type]

    class Offline:
        def role_identity(self, role: str) -> str:
            return "offline/3"

    with pytest.raises(ConfigError, match="the describer has no model"):
        describer_label(Offline())  # type: ignore[arg-type]
