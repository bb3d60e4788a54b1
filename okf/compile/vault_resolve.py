"""The ``resolve_vault`` step: every compiled source indexed as a wikilink target, and the documents holding
wikilinks planned again when that index changed since the last compile (through the documents step)."""

from __future__ import annotations

import hashlib
import json

from okf.compile.documents import build_documents
from okf.compile.state import CompileState
from okf.compile.vault import NoteMeta
from okf.wikilinks import Note, Vault


def _note_of(state: CompileState, resource: str) -> tuple[str | None, list[str]]:
    plan = state.plans.get(resource)
    if plan is not None:
        note = plan.note or NoteMeta()
        return plan.title, note.aliases
    entry = state.doc_entries.get(resource) or {}
    note_record = entry.get("note") or {}
    return entry.get("title"), list(note_record.get("aliases", []))


def resolve_vault(state: CompileState) -> None:
    """Index every compiled source as a wikilink target; rebuild the documents holding wikilinks when the
    index changed since the last compile."""
    notes: list[Note] = []
    for source in state.files:
        if source.resource not in state.plans and source.resource not in state.doc_entries:
            continue  # skipped (empty or unreadable): nothing to link to
        title, aliases = _note_of(state, source.resource)
        notes.append(Note(source.resource, title, tuple(aliases)))
    state.vault = Vault(notes)
    state.vault_sources = {n.path for n in notes}
    key = hashlib.sha256(json.dumps([[n.path, n.title, list(n.aliases)] for n in notes]).encode()).hexdigest()
    state.vault_key = key[:16]
    previous = (state.previous or {}).get("vault")
    if previous is None or previous == state.vault_key:
        return
    extra = [
        s
        for s in state.files
        if s.resource not in state.plans and (state.doc_entries.get(s.resource) or {}).get("wikilinks")
    ]
    if not extra:
        return
    planned, jobs = state.rebuild, state.jobs
    state.rebuild = extra
    try:
        build_documents(state)
    finally:
        state.rebuild, state.jobs = planned + extra, max(jobs, state.jobs)
    state.report.documents_rebuilt += len(extra)
