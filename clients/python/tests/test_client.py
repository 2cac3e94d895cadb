"""Every call of the client against a real ``vouch serve``.

The client decodes strictly here: a member the server sends that the
generated types lack fails the test, as does a value outside an enumeration.
"""

from __future__ import annotations

import datetime
import os
import typing as t
import unittest
import uuid
from unittest import mock

from vouch import BatchItem, Client, Event, VouchError
from vouch import types as vt

from . import harness

READ_TIMEOUT = 30.0


def release_request(request_id: str, attempt: int, done: bool) -> vt.Request:
    """A request whose one must-pass criterion a rule decides: the summary
    says DONE, or it does not."""
    summary = "Release 1.4 is DONE." if done else "Release 1.4 is not finished."
    return vt.Request(
        id=request_id,
        attempt=attempt,
        task=vt.Task(
            id=request_id,
            goal="Say when the release is done",
            criteria=[
                vt.Criterion(
                    id="done",
                    text="says DONE",
                    must=True,
                    check=vt.Check(type="contains", extra={"value": "DONE"}),
                )
            ],
        ),
        output=vt.Output(summary=summary),
    )


class ClientTest(unittest.TestCase):
    """The calls of the client, each against the server."""

    server: harness.Server
    client: Client
    run_id: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = harness.server()
        cls.client = Client(cls.server.url, cls.server.api_key or "", strict=True, timeout=60)
        cls.run_id = "py-" + uuid.uuid4().hex[:12]

    def rid(self, name: str) -> str:
        """An id of this run's, for one test."""
        return f"{self.run_id}-{name}"

    def verify_done(self, name: str) -> t.Tuple[vt.Report, vt.Report]:
        """Verifies attempt 1 (sent back) and 2 (passed) of a task."""
        first = self.client.verify(release_request(self.rid(name), 1, done=False))
        second = self.client.verify(release_request(self.rid(name), 2, done=True))
        return first, second

    def test_verify(self) -> None:
        first, second = self.verify_done("verify")
        self.assertIsInstance(first, vt.Report)
        self.assertEqual(first.verdict, "retry")
        self.assertEqual(first.action, "retry")
        self.assertEqual(first.attempt, 1)
        self.assertIn('does not contain "DONE"', first.feedback)
        self.assertEqual(first.criteria[0].status, "unmet")
        self.assertIsInstance(first.checks[0], vt.CheckResult)
        self.assertIsInstance(first.cost, vt.Cost)
        self.assertIsInstance(first.dimensions["criteria"], vt.Dimension)
        self.assertEqual(second.verdict, "pass")
        self.assertEqual(second.attempt, 2)
        self.assertEqual(second.score, 1.0)

    def test_verify_unverified(self) -> None:
        req = vt.Request(
            id=self.rid("unverified"),
            task=vt.Task(goal="Summarise the meeting"),
            output=vt.Output(summary="ok"),
        )
        rep = self.client.verify(req)
        self.assertEqual(rep.verdict, "unverified")
        self.assertIsNone(rep.score)
        self.assertIn("NOTHING_DECIDED", [w.code for w in rep.warnings])

    def test_verify_accepts_a_dict(self) -> None:
        rep = self.client.verify(
            {"id": self.rid("dict"), "task": {"goal": "g"}, "output": {"summary": "s"}}
        )
        self.assertEqual(rep.id, self.rid("dict"))

    def test_verify_raw_replays_and_conflicts(self) -> None:
        body = (
            '{"id": "%s", "task": {"goal": "Say DONE", "criteria": [{"text": "says DONE",'
            ' "must": true, "check": {"type": "contains", "value": "DONE"}}]},'
            ' "output": {"summary": "DONE"}}' % self.rid("raw")
        )
        raw, replayed = self.client.verify_raw(body)
        self.assertFalse(replayed)
        self.assertIn(b'"verdict":"pass"', raw)
        again, replayed = self.client.verify_raw(body)
        self.assertTrue(replayed)
        self.assertEqual(again, raw)
        with self.assertRaises(VouchError) as cm:
            self.client.verify_raw(body.replace('"summary": "DONE"', '"summary": "DONE!"'))
        self.assertEqual(cm.exception.status, 409)
        self.assertTrue(cm.exception.is_conflict)
        self.assertEqual(cm.exception.code, "idempotency_conflict")

    def test_verify_idempotency_key(self) -> None:
        key = self.rid("key")
        a = self.client.verify(release_request(self.rid("key-a"), 1, True), idempotency_key=key)
        b = self.client.verify(release_request(self.rid("key-a"), 1, True), idempotency_key=key)
        self.assertEqual(a, b)
        with self.assertRaises(VouchError) as cm:
            self.client.verify(release_request(self.rid("key-b"), 1, True), idempotency_key=key)
        self.assertTrue(cm.exception.is_conflict)

    def test_bad_input_lists_every_problem(self) -> None:
        with self.assertRaises(VouchError) as cm:
            self.client.verify({"task": {"goal": 3, "bogus": 1}, "output": {}})
        e = cm.exception
        self.assertEqual(e.status, 400)
        self.assertEqual(e.code, "wrong_type")
        self.assertEqual(e.message, "got number, want string")
        self.assertEqual(
            [(p.code, p.path) for p in e.problems],
            [
                ("wrong_type", "task.goal"),
                ("unknown_field", "task.bogus"),
                ("missing", "output.summary"),
            ],
        )
        self.assertIsInstance(e.problems[0], vt.Problem)
        self.assertEqual(e.problems[0].line, 1)
        self.assertIn("400 wrong_type", str(e))
        self.assertIn("(and 2 more problems)", str(e))

    def test_bad_key(self) -> None:
        bad = Client(self.server.url, "vk_nope_0000", retries=0)
        with self.assertRaises(VouchError) as cm:
            bad.verify(release_request(self.rid("badkey"), 1, True))
        self.assertEqual(cm.exception.status, 401)
        self.assertEqual(cm.exception.code, "unauthorized")
        self.assertIn("unknown or revoked", cm.exception.message)
        with self.assertRaises(VouchError) as cm:
            bad.events()
        self.assertEqual(cm.exception.status, 401)

    def test_no_key(self) -> None:
        if not self.server.keyed:
            self.skipTest("the server is in open mode: a call without a key is allowed")
        with mock.patch.dict(os.environ, {"VOUCH_API_KEY": ""}):
            with self.assertRaises(VouchError) as cm:
                Client(self.server.url).alerts()
        self.assertEqual(cm.exception.status, 401)
        self.assertEqual(cm.exception.code, "unauthorized")

    def test_key_from_environment(self) -> None:
        with mock.patch.dict(os.environ, {"VOUCH_API_KEY": "vk_nope_0000"}):
            with self.assertRaises(VouchError) as cm:
                Client(self.server.url).alerts()
            self.assertEqual(cm.exception.status, 401)
        with mock.patch.dict(os.environ, {"VOUCH_API_KEY": self.server.api_key or ""}):
            self.assertIsInstance(Client(self.server.url).alerts(), vt.AlertReport)

    def test_server_from_environment(self) -> None:
        with mock.patch.dict(os.environ, {"VOUCH_SERVER": self.server.url}):
            self.assertEqual(Client().base_url, self.server.url)

    def test_verify_task(self) -> None:
        rules = self.client.verify_task(
            task_description="Give the capital of France (%s)" % self.run_id,
            success_criteria=["names Paris as the capital"],
            task_output="The capital of France is Paris.",
        )
        self.assertIsInstance(rules, vt.TaskResult)
        self.assertEqual(rules.verdict, "unverified")
        self.assertEqual(rules.scoring_mode, "rules")
        self.assertIsNone(rules.aggregate_score)
        self.assertIsNone(rules.criteria_scores[0].met)

        matched = self.client.verify_task(
            vt.TaskInput(
                task_description="Give the capital of France (%s)" % self.run_id,
                success_criteria=["Paris is the capital"],
                task_output="The capital of France is Paris.",
                scoring_mode="criteria_match",
            )
        )
        self.assertEqual(matched.verdict, "pass")
        self.assertEqual(matched.scoring_mode, "criteria_match")
        score = matched.criteria_scores[0]
        self.assertTrue(score.met)
        self.assertIsInstance(score.match, vt.TaskResultCriteriaScoreMatch)
        self.assertEqual(sorted(score.match.matched_words), ["capital", "paris"])
        self.assertNotEqual(matched.id, rules.id)

    def test_verify_task_bad_mode(self) -> None:
        with self.assertRaises(VouchError) as cm:
            self.client.verify_task(task_output="x", scoring_mode="vibes")
        self.assertEqual(cm.exception.status, 400)

    def test_batches(self) -> None:
        status = self.client.create_batch(
            [
                release_request(self.rid("batch-1"), 1, done=True),
                {"id": self.rid("batch-2"), "task": {"goal": "g"}, "output": {"summary": "s"}},
                '{"id": "%s", "task": {"goal": 3}, "output": {"summary": "s"}}' % self.rid("b3"),
            ]
        )
        self.assertIsInstance(status, vt.BatchStatus)
        self.assertEqual(status.total, 3)
        self.assertEqual(status.failed, 1)
        self.assertTrue(status.results.endswith("/results"))
        done = self.client.wait_batch(status.id, timeout=120)
        self.assertEqual(done.state, "done")
        self.assertEqual((done.done, done.failed, done.pending), (2, 1, 0))
        self.assertIsNotNone(done.finished_at)
        self.assertEqual(self.client.batch(status.id), done)
        items = list(self.client.batch_results(status.id))
        self.assertEqual([i.index for i in items], [0, 1, 2])
        self.assertTrue(all(isinstance(i, BatchItem) for i in items))
        assert items[0].report is not None and items[1].report is not None
        self.assertEqual(items[0].report.id, self.rid("batch-1"))
        self.assertEqual(items[0].report.verdict, "pass")
        self.assertEqual(items[1].report.verdict, "unverified")
        self.assertIsNone(items[2].report)
        assert items[2].error is not None
        self.assertEqual(items[2].error.code, "wrong_type")
        self.assertEqual(items[2].line, 3)
        with self.assertRaises(VouchError) as cm:
            self.client.batch("b-no-such-batch")
        self.assertTrue(cm.exception.is_not_found)

    def test_log(self) -> None:
        self.verify_done("log")
        rid = self.rid("log")
        latest = self.client.verification(rid)
        self.assertIsInstance(latest, vt.StoredReport)
        self.assertEqual(latest.attempt, 2)
        self.assertIsNone(latest.overrides)
        first = self.client.verification(rid, attempt=1)
        self.assertEqual(first.verdict, "retry")
        page = self.client.list_verifications(task_id=rid, limit=1)
        self.assertIsInstance(page, vt.VerificationList)
        self.assertEqual(len(page.items), 1)
        self.assertIsInstance(page.items[0], vt.Summary)
        self.assertEqual((page.items[0].id, page.items[0].attempt), (rid, 2))
        self.assertIsNotNone(page.next)
        nxt = self.client.list_verifications(
            vt.ListVerificationsParams(task_id=rid, limit=1, cursor=page.next)
        )
        self.assertEqual(nxt.items[0].attempt, 1)
        self.assertEqual(
            [(s.attempt, s.verdict) for s in self.client.iter_verifications(task_id=rid, limit=1)],
            [(2, "pass"), (1, "retry")],
        )
        retries = self.client.list_verifications(
            task_id=rid,
            verdict="retry",
            since=datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1),
        )
        self.assertEqual([s.attempt for s in retries.items], [1])
        with self.assertRaises(VouchError) as cm:
            self.client.verification(self.rid("no-such-verification"))
        self.assertTrue(cm.exception.is_not_found)
        self.assertEqual(cm.exception.code, "not_found")

    def test_labels(self) -> None:
        self.verify_done("labels")
        rid = self.rid("labels")
        ov = self.client.override(rid, verdict="fail", reason="the notes it cites do not exist")
        self.assertIsInstance(ov, vt.Override)
        self.assertEqual((ov.verification_id, ov.attempt, ov.verdict), (rid, 2, "fail"))
        self.assertTrue(ov.reviewer)
        ov1 = self.client.override(
            rid, vt.OverrideInput(verdict="pass", reviewer="ana", attempt=1, reason="fine")
        )
        self.assertEqual((ov1.attempt, ov1.reviewer), (1, "ana"))
        stored = self.client.verification(rid)
        assert stored.overrides is not None
        self.assertEqual([o.verdict for o in stored.overrides], ["fail"])

        oc = self.client.outcome(verification_id=rid, good=False, detail="rolled back")
        self.assertIsInstance(oc, vt.Outcome)
        self.assertEqual((oc.verification_id, oc.attempt, oc.good), (rid, 2, False))
        by_task = self.client.outcome(vt.OutcomeInput(task_id=rid, good=True, reporter="ci"))
        self.assertEqual((by_task.verification_id, by_task.reporter), (rid, "ci"))

        with self.assertRaises(VouchError) as cm:
            self.client.override(rid, verdict="maybe")
        self.assertEqual(cm.exception.status, 400)
        with self.assertRaises(VouchError) as cm:
            self.client.override(self.rid("no-such"), verdict="pass")
        self.assertTrue(cm.exception.is_not_found)
        with self.assertRaises(VouchError) as cm:
            self.client.outcome(task_id=self.rid("no-such-task"), good=True)
        self.assertTrue(cm.exception.is_not_found)

    def test_metrics_and_alerts(self) -> None:
        self.verify_done("metrics")
        m = self.client.metrics()
        self.assertIsInstance(m, vt.Metrics)
        assert m.verifications is not None and m.verdicts is not None
        self.assertGreaterEqual(m.verifications, 2)
        self.assertIn("unverified", m.verdicts)
        self.assertIsInstance(m.window, vt.Window)
        self.assertIsInstance(m.first_pass, vt.Rate)
        recent = self.client.metrics(window=datetime.timedelta(hours=1), kind="subtask")
        self.assertIsInstance(recent, vt.Metrics)
        since = self.client.metrics(
            vt.GetMetricsParams(
                since=datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=1)
            )
        )
        assert since.verifications is not None
        self.assertGreaterEqual(since.verifications, 2)
        with self.assertRaises(VouchError) as cm:
            self.client.metrics(window="a while")
        self.assertEqual(cm.exception.status, 400)

        alerts = self.client.alerts()
        self.assertIsInstance(alerts, vt.AlertReport)
        self.assertEqual(
            sorted(a.name for a in alerts.alerts if a.name),
            ["catchRate", "falseAlarmRate", "retrySuccess", "taskCostRatio", "unverifiedRate"],
        )

    def test_calibration_and_examples(self) -> None:
        self.verify_done("calibration")
        self.client.override(self.rid("calibration"), verdict="retry", reason="too terse")
        cal = self.client.calibration(window="720h")
        self.assertIsInstance(cal, vt.Calibration)
        self.assertIsInstance(cal.unverified, int)
        self.assertIsInstance(cal.enough, bool)
        self.assertTrue(cal.message)
        try:
            patch = self.client.calibration_patch(min_labels=1)
            self.assertIsInstance(patch, str)
        except VouchError as e:
            self.assertEqual(e.status, 409)  # nothing suggested
        ex = self.client.examples(per_class=5)
        self.assertIsInstance(ex, vt.JudgeExamples)
        assert ex.examples is not None
        self.assertIn("too terse", [e.reason for e in ex.examples])
        self.assertTrue(all(isinstance(e, vt.JudgeExamplesExample) for e in ex.examples))
        patch = self.client.examples_patch(per_class=5)
        self.assertIn("too terse", patch)

    def test_events_resume_after_an_id(self) -> None:
        a, b, c = self.rid("event-a"), self.rid("event-b"), self.rid("event-c")
        self.client.verify(release_request(a, 1, done=True))

        # From the start of the tenant's stream, up to A's event.
        with self.client.events("0", timeout=READ_TIMEOUT) as stream:
            after_a = self.read_until(stream, a)
        self.assertEqual(stream.last_event_id, after_a.id)

        self.client.verify(release_request(b, 1, done=False))
        with self.client.events(after_a.id, timeout=READ_TIMEOUT) as stream:
            seen = []
            for ev in stream:
                seen.append(ev)
                if ev.report is not None and ev.report.id == b:
                    break
        self.assertTrue(seen, "no event after A's")
        self.assertTrue(all(int(ev.id) > int(after_a.id) for ev in seen))
        self.assertNotIn(a, [ev.report.id for ev in seen if ev.report is not None])
        complete = seen[-1]
        self.assertEqual(complete.type, "verification:complete")
        self.assertEqual(complete.data["type"], "verification:complete")
        self.assertEqual(complete.data["attempt"], 1)
        self.assertEqual(stream.last_event_id, complete.id)

        # Without an id the stream starts with the events stored from now.
        with self.client.events(timeout=READ_TIMEOUT) as stream:
            self.client.verify(release_request(c, 1, done=True))
            ev = self.read_until(stream, c)
            self.assertGreater(int(ev.id), int(complete.id))

    def read_until(self, stream: t.Iterable[Event], report_id: str) -> Event:
        """Reads events until the verification:complete of report_id."""
        for ev in stream:
            self.assertIsInstance(ev, Event)
            if ev.report is not None and ev.report.id == report_id:
                return ev
        self.fail(f"the stream ended before the event of {report_id}")

    def test_bad_event_id(self) -> None:
        with self.assertRaises(VouchError) as cm:
            self.client.events("not-an-id")
        self.assertEqual(cm.exception.status, 400)


if __name__ == "__main__":
    unittest.main()
