"""JSON output with a file name that is not UTF-8: `--json`, `--trace` and `--log` stay valid UTF-8 JSON that
gives the name back, never "unexpected ... please report it"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from builders import concept, write_files

from okf.cli.common import json_text
from okf.models import TraceEvent


def _bundle(root: Path) -> Path:
    bundle = write_files(
        root,
        {
            "index.md": "# Shop\n\n- [Opening hours](hours.md): when the shop opens\n",
            "hours.md": concept("Opening hours", "The shop opens at 9."),
        },
    )
    try:
        with open(os.fsencode(bundle) + b"/caf\xe9.md", "wb") as f:
            f.write(concept("Cafe", "The cafe opens at 8.", description="the cafe").encode("utf-8"))
    except OSError:  # a file system that takes only UTF-8 names (macOS): such a bundle cannot exist there
        pytest.skip("this file system refuses names that are not UTF-8")
    return bundle


def _okf(*args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "OKF_CACHE_DIR": os.environ.get("OKF_CACHE_DIR", ""), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "okf", *args], capture_output=True, env=env, timeout=120)


def test_json_output_names_a_file_whose_name_is_not_utf8(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path / "b")
    name = os.fsdecode(b"caf\xe9.md")  # 'caf\udce9.md', as okf reads it
    checked = _okf("check", str(bundle), "--json")
    assert checked.returncode == 0, checked.stderr
    report = json.loads(checked.stdout.decode("utf-8"))  # valid UTF-8, valid JSON
    assert any(name in json.dumps(d, ensure_ascii=False) for d in report["diagnostics"])  # not listed in index.md
    assert os.fsencode(name) == b"caf\xe9.md"  # the name comes back as its bytes
    assert [d["path"] for d in report["diagnostics"] if d["code"] == "W117"] == ["caf\\xe9.md"]
    told = _okf("check", str(bundle))  # text output on a strict UTF-8 stdout: the name's own bytes, as ls shows it
    assert told.returncode == 0 and b"caf\\xe9.md: W117 warning: the name is not UTF-8" in told.stdout
    assert b"caf\xe9.md is not listed in index.md" in told.stdout
    shown = _okf("navigate", str(bundle), "When does the cafe open?", "--angles", "off")
    assert shown.returncode == 0 and b"caf\xe9.md" in shown.stdout, shown.stderr

    trace, log = tmp_path / "t.jsonl", tmp_path / "log.jsonl"
    walked = _okf("navigate", str(bundle), "When does the cafe open?", "--json", "--trace", str(trace))
    assert walked.returncode == 0, walked.stderr
    assert name in [e["path"] for e in json.loads(walked.stdout.decode("utf-8"))["shortlist"]]
    assert any(
        name in json.dumps(json.loads(line), ensure_ascii=False)
        for line in trace.read_text(encoding="utf-8").splitlines()
    )
    asked = _okf("ask", str(bundle), "When does the cafe open?", "--json", "--log", str(log))
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout.decode("utf-8"))["question"] == "When does the cafe open?"
    assert json.loads(log.read_text(encoding="utf-8").splitlines()[-1])
    assert b"please report it" not in checked.stderr + walked.stderr + asked.stderr


def test_json_text_escapes_a_lone_surrogate_in_keys_and_values_and_keeps_other_text() -> None:
    event = TraceEvent(seq=0, t=0.0, kind="collected", path="", data={"first": {"caf\udce9.md": "weak"}})
    text = json_text(event)
    assert "\\udce9" in text and json.loads(text)["data"]["first"] == {"caf\udce9.md": "weak"}
    text.encode("utf-8")  # no lone surrogate left
    plain = TraceEvent(seq=1, t=0.5, kind="verdict", path="caf\u00e9.md", data={"reason": "Café ✓"})
    assert json_text(plain) == json.dumps(plain.model_dump(mode="json"), ensure_ascii=False)
    assert json_text({"a": ["caf\udce9"]}, indent=2) == '{\n  "a": [\n    "caf\\udce9"\n  ]\n}'
