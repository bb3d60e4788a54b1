"""Test doubles shipped with okf: a loopback chat-completions server and a scripted reader. No network."""

from __future__ import annotations

from okf.testing.describer import describer_rule
from okf.testing.roles import ScriptedRoleReader, roles_rule
from okf.testing.scripted import ScriptedReader
from okf.testing.server import (
    LoopbackServer,
    RecordedRequest,
    Reply,
    ReplySpec,
    echo_key_rule,
    loopback_only,
    offline_rule,
    out_of_range_rule,
    wrong_count_rule,
)

__all__ = [
    "LoopbackServer",
    "RecordedRequest",
    "Reply",
    "ReplySpec",
    "ScriptedReader",
    "ScriptedRoleReader",
    "describer_rule",
    "echo_key_rule",
    "loopback_only",
    "offline_rule",
    "out_of_range_rule",
    "roles_rule",
    "wrong_count_rule",
]
