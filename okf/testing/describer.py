"""A loopback-server rule for the describer role (``okf compile --model``): deterministic, recognisable replies.

:func:`describer_rule` answers the ``describe`` task with, for each concept, the description ``"Model: "``
followed by the first words of its text, and the tags ``["model tag", <the title's first word>]``; and the
``title`` task with ``"Topic " + <the first member's first word>`` (made distinct among the groups of the
request). Every other task is answered by ``base`` (by default
:func:`~okf.testing.server.offline_rule`). Tests see at a glance which signposts a model wrote.
"""

from __future__ import annotations

from typing import Any

from okf.testing.server import Rule, offline_rule, request_payload


def describe_reply(payload: dict[str, Any]) -> dict[str, Any]:
    """The reply a well-behaved describer gives to one ``describe`` payload."""
    out = []
    for concept in payload.get("concepts", []):
        lead = " ".join([w.strip("#*_`|>-") for w in str(concept.get("text", "")).split() if w.strip("#*_`|>-")][:12])
        first = (str(concept.get("title", "")).split() or ["untitled"])[0]
        out.append(
            {
                "index": concept["index"],
                "description": f"Model: {lead or 'a concept with no text'}.",
                "tags": ["model tag", first],
            }
        )
    return {"concepts": out}


def title_reply(payload: dict[str, Any]) -> dict[str, Any]:
    """The reply a well-behaved describer gives to one ``title`` payload."""
    out, seen = [], set()
    for group in payload.get("groups", []):
        members = group.get("members") or ["group"]
        word = next((w for w in str(members[0]).replace(":", " ").split() if any(c.isalpha() for c in w)), "group")
        title = f"Topic {word}"
        n = 1
        while title.casefold() in seen:
            n += 1
            title = f"Topic {word} {n}"
        seen.add(title.casefold())
        out.append({"index": group["index"], "title": title})
    return {"titles": out}


def describer_rule(base: Rule | None = None) -> Rule:
    """A rule answering ``describe`` and ``title`` requests (see the module docstring), others with ``base``."""
    inner = base or offline_rule()

    def rule(request: dict[str, Any]) -> Any:
        payload = request_payload(request)
        if payload.get("task") == "describe":
            return describe_reply(payload)
        if payload.get("task") == "title":
            return title_reply(payload)
        return inner(request)

    return rule


__all__ = ["describe_reply", "describer_rule", "title_reply"]
