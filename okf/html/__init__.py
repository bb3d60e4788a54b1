"""The one templating setup of okf's HTML (trace and eval reports, the exported static site).

Jinja2 with autoescape always on: every string from a bundle, a model or a trace is escaped, so a title
containing ``<script>`` renders as text. Pages are self-contained: styles and the one small script are
inlined from package data, and a Content-Security-Policy forbids every network fetch and any script but
the page's own (pinned by its sha256).
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import resources

from jinja2 import Environment, PackageLoader, StrictUndefined

from okf._version import __version__


@cache
def asset(name: str) -> str:
    """A static file of ``okf/html/templates`` (stylesheet, script) as text."""
    return resources.files("okf.html").joinpath("templates", name).read_text(encoding="utf-8")


def csp(scripts: list[str]) -> str:
    """A policy allowing no fetch at all, inline styles, data: images and exactly these inline scripts."""
    hashes = " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(s.encode('utf-8')).digest()).decode()}'" for s in scripts
    )
    script_src = f"script-src {hashes}" if hashes else "script-src 'none'"
    return f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; {script_src}; base-uri 'none'; form-action 'none'"


@cache
def environment() -> Environment:
    """The shared Jinja2 environment (autoescape on for every template, undefined names are errors)."""
    env = Environment(
        loader=PackageLoader("okf.html", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals["okf_version"] = __version__
    env.globals["type_name"] = lambda value: type(value).__name__
    env.filters["seconds"] = lambda v: "-" if v is None else f"{v:.3f} s"
    env.filters["pct"] = lambda v: "n/a" if v is None else f"{v:.1%}"
    return env


def render(template: str, *, scripts: tuple[str, ...] = (), **context: object) -> str:
    """Render ``template`` with ``context``; ``scripts`` are asset names inlined and allowed by the CSP."""
    bodies = [asset(name) for name in scripts]
    return (
        environment()
        .get_template(template)
        .render(**context, inline_scripts=bodies, content_security_policy=csp(bodies), stylesheet=asset("style.css"))
    )
