#!/usr/bin/env python3
"""vouch as the verify step of an agent loop.

The loop is shaped as a LangGraph graph would be, without the framework:

    generate -> verify -> pass:  end
                       -> retry: generate again, with vouch's feedback
                       -> else:  escalate to a person

The agent is a stand-in for a model call: its first draft of the release
notes leaves out the upgrade section, and it fixes what the feedback names.
Every criterion is decided by a rule (no judge model is needed), so the run
is the same every time: attempt 1 is sent back, attempt 2 passes.

    vouch serve &                      # or: go run ./cmd/vouch serve &
    python3 examples/agent_loop.py     # VOUCH_SERVER, VOUCH_API_KEY if set

It exits 0 when the work passed and 1 when it was escalated.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import typing as t
import uuid

# Run from the source tree without installing the client.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from vouch import Client  # noqa: E402
from vouch.types import Check, Criterion, Output, Report, Request, Task  # noqa: E402

MAX_ATTEMPTS = 3


@dataclasses.dataclass
class State:
    """What flows between the nodes of the graph."""

    task: Task
    attempt: int = 0
    draft: str = ""
    feedback: str = ""
    report: t.Optional[Report] = None


def release_notes_task(run: str) -> Task:
    """The task: release notes whose every criterion a rule decides."""
    return Task(
        id=f"release-notes-1.4-{run}",
        goal="Write the release notes of vouch 1.4",
        criteria=[
            Criterion(id="version", text="names the version", must=True,
                      check=Check(type="contains", extra={"value": "1.4"})),
            Criterion(id="sections", text="has Changes and Upgrading sections", must=True,
                      check=Check(type="sections", extra={"required": ["Changes", "Upgrading"]})),
            Criterion(id="migrations", text="says to run the migrations", must=True,
                      check=Check(type="contains",
                                  extra={"value": "migration", "ignoreCase": True})),
        ],
    )


def agent(task: Task, feedback: str) -> str:
    """A stand-in for the model: writes the notes, and adds the upgrade
    section once the feedback says it is missing."""
    notes = "# vouch 1.4\n\n## Changes\n\n- Faster batch uploads\n- An alerts page\n"
    if "Upgrading" in feedback:
        notes += "\n## Upgrading\n\nRun the database migrations before the new server.\n"
    return notes


def generate(state: State) -> State:
    """The agent's node: a new draft, with the last feedback in its prompt."""
    return dataclasses.replace(
        state, attempt=state.attempt + 1, draft=agent(state.task, state.feedback)
    )


def verify(state: State, client: Client) -> State:
    """vouch's node: verify the draft; the report decides the next node."""
    assert state.task.id is not None
    report = client.verify(Request(
        id=state.task.id,
        attempt=state.attempt,
        task=state.task,
        output=Output(summary=state.draft),
    ))
    return dataclasses.replace(state, report=report, feedback=report.feedback)


def route(state: State) -> str:
    """The conditional edge after verify: end, generate or escalate."""
    assert state.report is not None
    if state.report.verdict == "pass":
        return "end"
    if state.report.verdict == "retry" and state.attempt < MAX_ATTEMPTS:
        return "generate"
    # fail, escalate, unverified (nothing found false, but not checked
    # either), or out of attempts: a person decides.
    return "escalate"


def run(client: Client, run_id: str) -> State:
    """Runs the graph to its end and returns the last state."""
    state = State(task=release_notes_task(run_id))
    node = "generate"
    while node in ("generate", "verify"):
        if node == "generate":
            state, node = generate(state), "verify"
            continue
        state = verify(state, client)
        assert state.report is not None
        print(f"attempt {state.attempt}: {state.report.verdict} ({state.report.action})"
              f" - {state.report.reason}")
        node = route(state)
        if node == "generate":
            print("  feedback to the agent:")
            for line in state.feedback.splitlines():
                print("    " + line)
    retries = state.attempt - 1
    if node == "end":
        print(f"result: pass after {retries} {'retry' if retries == 1 else 'retries'}")
    else:
        print(f"result: escalated to a person after {state.attempt} attempts")
    return state


def main() -> int:
    client = Client()
    state = run(client, uuid.uuid4().hex[:8])
    return 0 if state.report is not None and state.report.verdict == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())
