"""The client's retries, errors and stream reading, against stub servers
that answer what a test scripts (429, 503, an event stream)."""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
import typing as t
import unittest

from vouch import Client, VouchError
from vouch import types as vt
from vouch._codec import DecodeError, from_json, to_json

REPORT = {
    "apiVersion": "vouch/v1",
    "id": "r-1",
    "kind": "subtask",
    "attempt": 1,
    "verdict": "unverified",
    "action": "accept",
    "score": None,
    "confidence": 0,
    "needsReview": True,
    "claims": [],
    "coverage": None,
    "dimensions": {},
    "criteria": [],
    "checks": [],
    "mentions": {"verified": [], "unverified": [], "refuted": []},
    "gaps": [],
    "issues": [],
    "suggestions": [],
    "warnings": [],
    "feedback": "",
    "cost": {
        "judgeCalls": 0,
        "cacheHits": 0,
        "cacheMisses": 0,
        "inputTokens": 0,
        "outputTokens": 0,
        "usd": 0,
        "taskCostRatio": None,
    },
    "answerChars": 1,
    "durationMs": 0.1,
}

Answer = t.Tuple[int, t.Dict[str, str], bytes]


def overloaded(status: int = 429, retry_after: t.Optional[str] = "0") -> Answer:
    """The answer of a server with too many requests in flight (or a
    failing store, 503)."""
    code = "overloaded" if status == 429 else "store_unavailable"
    headers = {"Content-Type": "application/json"}
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    body = {"error": {"code": code, "message": "try again"}}
    return status, headers, json.dumps(body).encode()


def ok(body: t.Any = REPORT) -> Answer:
    """A 200 with a JSON body."""
    return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()


class Stub:
    """An HTTP server on a loopback port that gives the scripted answers in
    order (the last one again once they run out) and records the calls."""

    def __init__(self, answers: t.List[Answer]) -> None:
        self.answers = list(answers)
        self.calls: t.List[t.Tuple[str, str, t.Dict[str, str], bytes]] = []
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def handle_one(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                stub.calls.append((self.command, self.path, headers, body))
                status, answer_headers, out = (
                    stub.answers.pop(0) if len(stub.answers) > 1 else stub.answers[0]
                )
                self.send_response(status)
                for k, v in answer_headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            do_GET = do_POST = handle_one

            def log_message(self, *args: t.Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        """Stops the server."""
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


class RetryTest(unittest.TestCase):
    """429 and 503 are retried after Retry-After, a bounded number of
    times; nothing else is."""

    def stub(self, *answers: Answer) -> Stub:
        s = Stub(list(answers))
        self.addCleanup(s.close)
        return s

    def test_retries_429_and_503_until_an_answer(self) -> None:
        s = self.stub(overloaded(429), overloaded(503), ok())
        c = Client(s.url, "vk_test", max_wait=0.2)
        rep = c.verify(vt.Request(task=vt.Task(goal="g"), output=vt.Output(summary="s")),
                       idempotency_key="k-1")
        self.assertEqual(rep.verdict, "unverified")
        self.assertEqual(len(s.calls), 3)
        bodies = {call[3] for call in s.calls}
        self.assertEqual(len(bodies), 1, "every retry sends the same body")
        for method, path, headers, _ in s.calls:
            self.assertEqual((method, path), ("POST", "/v1/verify"))
            self.assertEqual(headers["idempotency-key"], "k-1")
            self.assertEqual(headers["authorization"], "Bearer vk_test")
            self.assertEqual(headers["content-type"], "application/json")

    def test_gives_up_after_the_retries(self) -> None:
        s = self.stub(overloaded(429, "30"))
        c = Client(s.url, retries=2, max_wait=0.05)
        start = time.monotonic()
        with self.assertRaises(VouchError) as cm:
            c.alerts()
        self.assertLess(time.monotonic() - start, 5, "max_wait caps Retry-After")
        self.assertEqual(len(s.calls), 3)
        e = cm.exception
        self.assertEqual((e.status, e.code, e.message), (429, "overloaded", "try again"))
        self.assertEqual(e.retry_after, 30.0)

    def test_retry_after_is_waited(self) -> None:
        s = self.stub(overloaded(503, "1"), ok({"window": {"since": "x", "until": "y"},
                                                "alerts": []}))
        c = Client(s.url, max_wait=10)
        start = time.monotonic()
        c.alerts()
        self.assertGreaterEqual(time.monotonic() - start, 0.9)
        self.assertEqual(len(s.calls), 2)

    def test_without_retry_after_waits_a_little(self) -> None:
        s = self.stub(overloaded(429, None), ok({"window": {"since": "x", "until": "y"},
                                                 "alerts": []}))
        Client(s.url).alerts()
        self.assertEqual(len(s.calls), 2)

    def test_no_retries(self) -> None:
        s = self.stub(overloaded(429))
        with self.assertRaises(VouchError) as cm:
            Client(s.url, retries=0).alerts()
        self.assertEqual(cm.exception.status, 429)
        self.assertEqual(len(s.calls), 1)

    def test_other_errors_are_not_retried(self) -> None:
        for status, code in [(400, "syntax"), (409, "idempotency_conflict"), (500, "internal")]:
            body = json.dumps({"error": {"code": code, "message": "no"}}).encode()
            s = self.stub((status, {"Content-Type": "application/json"}, body))
            with self.assertRaises(VouchError) as cm:
                Client(s.url).alerts()
            self.assertEqual((cm.exception.status, cm.exception.code), (status, code))
            self.assertEqual(len(s.calls), 1)

    def test_an_error_that_is_not_json(self) -> None:
        s = self.stub((502, {"Content-Type": "text/plain"}, b"bad gateway\n"))
        with self.assertRaises(VouchError) as cm:
            Client(s.url).alerts()
        self.assertEqual(cm.exception.status, 502)
        self.assertEqual(cm.exception.code, "Bad Gateway")
        self.assertEqual(cm.exception.message, "bad gateway")

    def test_unreachable(self) -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()  # nothing listens there now
        with self.assertRaises(VouchError) as cm:
            Client(f"http://127.0.0.1:{port}", timeout=5).alerts()
        self.assertEqual((cm.exception.status, cm.exception.code), (0, "unreachable"))

    def test_not_a_server_url(self) -> None:
        with self.assertRaises(ValueError):
            Client("ftp://example.com")


class StreamTest(unittest.TestCase):
    """The event stream is read as Server-Sent Events."""

    def test_events(self) -> None:
        sse = (
            "retry: 2000\n\n"
            ": keep-alive\n\n"
            "id: 7\nevent: verification:retry\n"
            'data: {"type": "verification:retry", "attempt": 1,\n'
            'data:  "data": {"feedback": "fix it", "action": "retry"}}\n\n'
            "id: 8\nevent: verification:complete\n"
            "data: " + json.dumps({"type": "verification:complete", "data": {"report": REPORT}})
            + "\n\n"
        ).encode()
        s = Stub([(200, {"Content-Type": "text/event-stream"}, sse)])
        self.addCleanup(s.close)
        with Client(s.url).events("6") as stream:
            events = list(stream)
        self.assertEqual(s.calls[0][2]["last-event-id"], "6")
        self.assertEqual(s.calls[0][2]["accept"], "text/event-stream")
        self.assertEqual([(e.id, e.type) for e in events],
                         [("7", "verification:retry"), ("8", "verification:complete")])
        self.assertEqual(events[0].payload, {"feedback": "fix it", "action": "retry"})
        self.assertIsNone(events[0].report)
        report = events[1].report
        assert report is not None
        self.assertEqual(report.id, "r-1")
        self.assertEqual(stream.last_event_id, "8")

    def test_batch_results(self) -> None:
        lines = (
            json.dumps(REPORT) + "\n"
            + '{"line": 2, "error": {"code": "wrong_type", "message": "no", "path": "task"}}\n'
            + '{"line": 3, "pending": true}\n'
        ).encode()
        s = Stub([(200, {"Content-Type": "application/jsonl", "X-Batch-State": "running"}, lines)])
        self.addCleanup(s.close)
        items = list(Client(s.url).batch_results("b-1"))
        self.assertEqual(s.calls[0][1], "/v1/batches/b-1/results")
        self.assertEqual([(i.index, i.line, i.pending) for i in items],
                         [(0, None, False), (1, 2, False), (2, 3, True)])
        assert items[0].report is not None and items[1].error is not None
        self.assertEqual(items[0].report.id, "r-1")
        self.assertEqual(items[1].error.path, "task")

    def test_path_parameters_are_escaped(self) -> None:
        s = Stub([ok(dict(REPORT, id="a/b c"))])
        self.addCleanup(s.close)
        Client(s.url).verification("a/b c", attempt=2)
        self.assertEqual(s.calls[0][1], "/v1/verifications/a%2Fb%20c?attempt=2")


class CodecTest(unittest.TestCase):
    """Dataclasses to JSON and back."""

    def test_round_trip(self) -> None:
        req = vt.Request(
            id="x",
            task=vt.Task(goal="g", criteria=[vt.Criterion(
                text="t", must=True, check=vt.Check(type="regex", not_=True,
                                                    extra={"pattern": "^a"}))]),
            output=vt.Output(summary="s", test_result="passed"),
        )
        data = to_json(req)
        self.assertEqual(data, {
            "id": "x",
            "task": {"goal": "g", "criteria": [
                {"text": "t", "must": True, "check": {"type": "regex", "not": True,
                                                      "pattern": "^a"}}]},
            "output": {"summary": "s", "testResult": "passed"},
        })
        self.assertEqual(from_json(vt.Request, data, strict=True), req)

    def test_required_nulls_are_written(self) -> None:
        rep = from_json(vt.Report, REPORT, strict=True)
        self.assertIsNone(rep.score)
        self.assertIsInstance(rep.confidence, float)
        self.assertEqual(to_json(rep), REPORT)

    def test_strict_refuses_what_the_types_lack(self) -> None:
        with self.assertRaisesRegex(DecodeError, "Report has no member novel"):
            from_json(vt.Report, dict(REPORT, novel=1), strict=True)
        with self.assertRaisesRegex(DecodeError, "lacks required member 'verdict'"):
            from_json(vt.Report, {k: v for k, v in REPORT.items() if k != "verdict"},
                      strict=True)
        with self.assertRaisesRegex(DecodeError, r"\$.verdict"):
            from_json(vt.Report, dict(REPORT, verdict="maybe"), strict=True)
        lenient = from_json(vt.Report, dict(REPORT, novel=1, verdict="maybe"))
        self.assertEqual(lenient.verdict, "maybe")

    def test_query_values(self) -> None:
        import datetime

        s = Stub([ok({"items": []})])
        self.addCleanup(s.close)
        Client(s.url).list_verifications(
            needs_review=True,
            since=datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
            executor_model="openai:gpt",
        )
        self.assertEqual(
            s.calls[0][1],
            "/v1/verifications?executorModel=openai%3Agpt&needsReview=true"
            "&since=2026-01-02T03%3A04%3A05Z",
        )
        with self.assertRaises(TypeError):
            Client(s.url).list_verifications(no_such_filter=1)


if __name__ == "__main__":
    unittest.main()
