"""The client of ``vouch serve``'s HTTP API.

::

    from vouch import Client

    client = Client("http://127.0.0.1:8080")  # the key from VOUCH_API_KEY
    report = client.verify(request)
    if report.verdict != "pass":
        print(report.feedback)

Calls the server answers 429 (too many requests in flight) or 503 (the store
failed, nothing recorded) are retried after the server's Retry-After, a few
times; that is safe because verifications are idempotent by key. Any other
failure raises :class:`VouchError` with the server's code and message.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
import socket
import time
import typing as t
import urllib.error
import urllib.parse
import urllib.request
from http import HTTPStatus

from . import types as vt
from ._codec import DecodeError, from_json, to_json

__all__ = ["BatchItem", "Client", "Event", "EventStream", "VouchError"]

T = t.TypeVar("T")

__version__ = "0.1.0"

DEFAULT_SERVER = "http://127.0.0.1:8080"
"""The server a client talks to when neither an argument nor VOUCH_SERVER names one."""

_RETRIED = (429, 503)


class VouchError(Exception):
    """An answer of the server other than success, or no answer at all.

    Attributes:
        status: The HTTP status; 0 when the server could not be reached or
            did not answer in time.
        code: The error's code: the server's (syntax, unknown_field,
            wrong_type, missing, unauthorized, forbidden, not_found,
            idempotency_conflict, overloaded, ...) or, without an answer,
            unreachable, timeout or bad_answer.
        message: What the error says.
        problems: Every problem of a bad input, each with its path (and line
            and column); the error itself when the server listed no others.
        retry_after: The server's Retry-After in seconds, when it gave one.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        problems: t.Optional[t.List[vt.Problem]] = None,
        retry_after: t.Optional[float] = None,
    ) -> None:
        super().__init__(status, code, message)
        self.status = status
        self.code = code
        self.message = message
        self.problems: t.List[vt.Problem] = list(problems or [])
        self.retry_after = retry_after

    def __str__(self) -> str:
        if self.status == 0:
            msg = f"vouch client: {self.code}: {self.message}"
        else:
            msg = f"vouch server: {self.status} {self.code}: {self.message}"
        if len(self.problems) > 1:
            msg += f" (and {len(self.problems) - 1} more problems)"
        return msg

    @property
    def is_conflict(self) -> bool:
        """Whether the idempotency key (or the request's id and attempt) is
        stored for another body (409)."""
        return self.status == 409

    @property
    def is_not_found(self) -> bool:
        """Whether the server answered 404."""
        return self.status == 404


@dataclasses.dataclass
class BatchItem:
    """One line of a batch's results, in input order.

    Attributes:
        index: The item's position in the results, from 0.
        report: The item's report, once it is verified.
        error: Why the item failed (it did not decode, or its verification
            failed).
        pending: Whether the item is still waiting to be verified.
        line: The item's line in the batch, when the server gave it (items
            that failed or wait).
    """

    index: int
    report: t.Optional[vt.Report] = None
    error: t.Optional[vt.Problem] = None
    pending: bool = False
    line: t.Optional[int] = None


@dataclasses.dataclass
class Event:
    """One event of the stream.

    Attributes:
        id: The event's sequence number: give it as ``last_event_id`` to
            resume after it.
        type: The event's type (verification:complete, verification:retry,
            subtask:escalated, alert:firing, ...).
        data: The event JSON: type, id, time, tenant, interactionId, taskId,
            attempt and data, the type's payload.
    """

    id: str
    type: str
    data: t.Dict[str, t.Any]

    @property
    def payload(self) -> t.Any:
        """The type's payload: data's own ``data`` member."""
        return self.data.get("data")

    @property
    def report(self) -> t.Optional[vt.Report]:
        """The report of a verification:complete event; None for others."""
        p = self.payload
        if self.type != "verification:complete" or not isinstance(p, dict):
            return None
        if not isinstance(p.get("report"), dict):
            return None
        return from_json(vt.Report, p["report"])


class EventStream:
    """The event stream of the caller's tenant, as an iterator of
    :class:`Event`.

    It ends when the server closes the stream; iterate again from
    ``last_event_id`` (``client.events(stream.last_event_id)``) to resume
    with nothing lost. Close it, or use it in a ``with`` block, to hang up.
    """

    def __init__(self, response: t.Any, last_event_id: t.Optional[str]) -> None:
        self._res = response
        self.last_event_id = last_event_id
        """The id of the last event given, to resume after it."""

    def __iter__(self) -> "EventStream":
        return self

    def __next__(self) -> Event:
        ev_id, ev_type = "", ""
        data: t.List[str] = []
        while True:
            try:
                raw = self._res.readline()
            except (socket.timeout, OSError, ValueError) as e:
                self.close()
                raise VouchError(0, "timeout", f"reading the event stream: {e}") from e
            if not raw:
                self.close()
                raise StopIteration
            line = raw.decode("utf-8").rstrip("\r\n")
            if line == "":
                if data:
                    try:
                        payload = json.loads("\n".join(data))
                    except ValueError as e:
                        raise VouchError(0, "bad_answer", f"event {ev_id}: {e}") from e
                    self.last_event_id = ev_id or self.last_event_id
                    return Event(id=ev_id, type=ev_type, data=payload)
                ev_id, ev_type, data = "", "", []
            elif line.startswith(":"):
                continue
            elif line.startswith("id:"):
                ev_id = line[3:].strip()
            elif line.startswith("event:"):
                ev_type = line[6:].strip()
            elif line.startswith("data:"):
                d = line[5:]
                data.append(d[1:] if d.startswith(" ") else d)

    def close(self) -> None:
        """Hangs up."""
        self._res.close()

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, *exc: t.Any) -> None:
        self.close()


RequestLike = t.Union[vt.Request, t.Mapping[str, t.Any]]
"""A request as a :class:`vouch.types.Request` or as its JSON (a dict)."""


class Client:
    """A client of one vouch server.

    Args:
        base_url: The server, http(s)://host:port; default the environment's
            VOUCH_SERVER, else http://127.0.0.1:8080.
        api_key: The API key (vk_...), sent as ``Authorization: Bearer``;
            default the environment's VOUCH_API_KEY. Without one, the
            server must be in open mode (no key in its store, loopback only).
        timeout: Seconds a call may wait for the server to answer.
        retries: How many times a call answered 429 or 503 is retried (0
            never retries).
        max_wait: The longest wait before a retry, in seconds, whatever the
            server's Retry-After says.
        strict: Decode answers strictly: a member the types do not know, or
            a value outside an enumeration, raises :class:`VouchError` (code
            bad_answer). For tests of a client against a server; a client
            in production should leave it off, so that a newer server's
            additions do not break it.
    """

    def __init__(
        self,
        base_url: t.Optional[str] = None,
        api_key: t.Optional[str] = None,
        *,
        timeout: float = 300.0,
        retries: int = 3,
        max_wait: float = 10.0,
        strict: bool = False,
    ) -> None:
        base = (base_url or os.environ.get("VOUCH_SERVER") or DEFAULT_SERVER).rstrip("/")
        u = urllib.parse.urlsplit(base)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError(f"{base!r} is not an http(s) URL of a server")
        self.base_url = base
        self._key = api_key if api_key is not None else os.environ.get("VOUCH_API_KEY", "")
        self.timeout = timeout
        self.retries = max(0, retries)
        self.max_wait = max_wait
        self.strict = strict
        # Like Go's clients, never send loopback traffic through a proxy
        # named by the environment.
        if _is_loopback(u.hostname):
            self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        else:
            self._opener = urllib.request.build_opener()

    def __repr__(self) -> str:
        return f"Client({self.base_url!r})"

    # Verifying.

    def verify(self, request: RequestLike, idempotency_key: t.Optional[str] = None) -> vt.Report:
        """Verifies one request and returns its report, stored in the log.

        Args:
            request: The request.
            idempotency_key: The key that makes the call idempotent; without
                one the request's id and attempt are the key.
        """
        raw, _ = self.verify_raw(_encode(request), idempotency_key)
        return self._decode(vt.Report, raw)

    def verify_raw(
        self,
        body: t.Union[bytes, str],
        idempotency_key: t.Optional[str] = None,
        content_type: str = "application/json",
    ) -> t.Tuple[bytes, bool]:
        """Sends a request as it is (JSON, or YAML with ``content_type``
        application/yaml) and returns the report's JSON, and whether the
        server replayed a stored report (Idempotent-Replayed)."""
        if isinstance(body, str):
            body = body.encode("utf-8")
        headers = {"Content-Type": content_type}
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        _, res_headers, raw = self._call(_op("verify"), headers=headers, body=body)
        return raw, res_headers.get("Idempotent-Replayed") == "true"

    def verify_task(
        self,
        task: t.Optional[t.Union[vt.TaskInput, t.Mapping[str, t.Any]]] = None,
        *,
        idempotency_key: t.Optional[str] = None,
        **fields: t.Any,
    ) -> vt.TaskResult:
        """Verifies the plain task shape: a description, criteria as
        sentences and an output.

        Give a :class:`vouch.types.TaskInput`, or its fields as keywords::

            client.verify_task(task_description="...", success_criteria=["..."],
                               task_output="...", scoring_mode="criteria_match")
        """
        if task is None:
            task = vt.TaskInput(**fields)
        elif fields:
            raise TypeError("give a TaskInput or its fields as keywords, not both")
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
        return self._json(vt.TaskResult, _op("verifyTask"), body=task, headers=headers)

    # Batches.

    def create_batch(
        self, requests: t.Iterable[t.Union[RequestLike, str, bytes]]
    ) -> vt.BatchStatus:
        """Sends requests as a batch and returns its status; the server
        verifies them in the background.

        Each request is a :class:`vouch.types.Request`, a dict, or a JSON
        document (str or bytes), sent as it is when it is on one line.
        """
        lines = []
        for r in requests:
            if isinstance(r, (str, bytes)):
                b = r.encode("utf-8") if isinstance(r, str) else r
                b = b.strip()
                if b"\n" in b:
                    b = _encode(json.loads(b))
                lines.append(b)
            else:
                lines.append(_encode(r))
        body = b"".join(line + b"\n" for line in lines)
        headers = {"Content-Type": "application/jsonl"}
        _, _, raw = self._call(_op("createBatch"), headers=headers, body=body)
        return self._decode(vt.BatchStatus, raw)

    def batch(self, batch_id: str) -> vt.BatchStatus:
        """Returns a batch's status."""
        return self._json(vt.BatchStatus, _op("getBatch", id=batch_id))

    def wait_batch(
        self, batch_id: str, timeout: float = 600.0, interval: float = 0.5
    ) -> vt.BatchStatus:
        """Polls a batch until it is done and returns its status.

        Args:
            batch_id: The batch.
            timeout: Seconds to wait at most; past them it raises
                :class:`VouchError` (code timeout).
            interval: The longest pause between two polls, in seconds (the
                first ones are shorter).
        """
        deadline = time.monotonic() + timeout
        pause = min(0.05, interval)
        while True:
            status = self.batch(batch_id)
            if status.state == "done":
                return status
            left = deadline - time.monotonic()
            if left <= 0:
                raise VouchError(
                    0, "timeout", f"batch {batch_id} is not done after {timeout:g}s"
                )
            time.sleep(min(pause, left))
            pause = min(pause * 2, interval)

    def batch_results(self, batch_id: str) -> t.Iterator[BatchItem]:
        """Iterates over a batch's results, in input order: each item's
        report, its error, or that it is pending."""
        res = self._stream(_op("getBatchResults", id=batch_id))
        with res:
            index = 0
            while True:
                raw = res.readline()
                if not raw:
                    return
                raw = raw.strip()
                if not raw:
                    continue
                try:
                    item = json.loads(raw)
                except ValueError as e:
                    raise VouchError(0, "bad_answer", f"batch result {index + 1}: {e}") from e
                yield self._batch_item(index, item)
                index += 1

    def _batch_item(self, index: int, item: t.Any) -> BatchItem:
        if isinstance(item, dict) and "line" in item and "apiVersion" not in item:
            err = item.get("error")
            return BatchItem(
                index=index,
                error=self._convert(vt.Problem, err) if err is not None else None,
                pending=bool(item.get("pending")),
                line=item.get("line"),
            )
        return BatchItem(index=index, report=self._convert(vt.Report, item))

    # The log.

    def verification(self, verification_id: str, attempt: int = 0) -> vt.StoredReport:
        """Returns a stored report, with the overrides people added;
        attempt 0 means the latest."""
        query = {"attempt": str(attempt)} if attempt > 0 else None
        return self._json(
            vt.StoredReport, _op("getVerification", id=verification_id), query=query
        )

    def list_verifications(
        self, params: t.Optional[vt.ListVerificationsParams] = None, **filters: t.Any
    ) -> vt.VerificationList:
        """Returns a page of the log, newest first.

        Filter with a :class:`vouch.types.ListVerificationsParams` or its
        fields as keywords (verdict="retry", task_id=..., since=datetime,
        limit=50, cursor=the previous page's next).
        """
        p = _params(vt.ListVerificationsParams, params, filters)
        return self._json(vt.VerificationList, _op("listVerifications"), query=_query(p))

    def iter_verifications(
        self, params: t.Optional[vt.ListVerificationsParams] = None, **filters: t.Any
    ) -> t.Iterator[vt.Summary]:
        """Iterates over the whole log (filtered as :meth:`list_verifications`
        does), newest first, page after page."""
        p = _params(vt.ListVerificationsParams, params, filters)
        while True:
            page = self._json(vt.VerificationList, _op("listVerifications"), query=_query(p))
            yield from page.items
            if not page.next:
                return
            p = dataclasses.replace(p, cursor=page.next)

    # Labels.

    def override(
        self,
        verification_id: str,
        override: t.Optional[t.Union[vt.OverrideInput, t.Mapping[str, t.Any]]] = None,
        **fields: t.Any,
    ) -> vt.Override:
        """Records a person's verdict (pass, retry or fail) beside a stored
        verification and returns it as recorded; the report never changes.

        Give a :class:`vouch.types.OverrideInput` or its fields as keywords
        (verdict, reason, reviewer, attempt: 0 for the latest). It needs a
        key with the review scope.
        """
        if override is None:
            override = vt.OverrideInput(**fields)
        elif fields:
            raise TypeError("give an OverrideInput or its fields as keywords, not both")
        return self._json(
            vt.Override, _op("overrideVerification", id=verification_id), body=override
        )

    def outcome(
        self,
        outcome: t.Optional[t.Union[vt.OutcomeInput, t.Mapping[str, t.Any]]] = None,
        **fields: t.Any,
    ) -> vt.Outcome:
        """Records what happened downstream of a verification: one named by
        verification_id (and attempt), or the latest of a task named by
        task_id (and interaction_id). good is required.

        Give a :class:`vouch.types.OutcomeInput` or its fields as keywords.
        It needs a key with the review scope.
        """
        if outcome is None:
            outcome = vt.OutcomeInput(**fields)
        elif fields:
            raise TypeError("give an OutcomeInput or its fields as keywords, not both")
        return self._json(vt.Outcome, _op("recordOutcome"), body=outcome)

    # Quality.

    def metrics(
        self, params: t.Optional[vt.GetMetricsParams] = None, **window: t.Any
    ) -> vt.Metrics:
        """Returns the quality metrics of the caller's tenant over a window.

        Select it with a :class:`vouch.types.GetMetricsParams` or its fields
        as keywords: since and until (datetimes or RFC 3339), or window (a
        timedelta or a Go duration, "168h"); kind, executor_model and
        criticality filter. It needs the read scope.
        """
        p = _params(vt.GetMetricsParams, params, window)
        return self._json(vt.Metrics, _op("getMetrics"), query=_query(p))

    def alerts(self) -> vt.AlertReport:
        """Evaluates the tenant's alerts now and returns every configured
        one, firing or not. It needs the read scope."""
        return self._json(vt.AlertReport, _op("getAlerts"))

    def calibration(
        self, params: t.Optional[vt.GetCalibrationParams] = None, **window: t.Any
    ) -> vt.Calibration:
        """Fits the server's policy to the labels of a window and returns
        the calibration (nothing is applied). Keywords: since, until,
        window, kind, min_labels. It needs the read scope."""
        p = _params(vt.GetCalibrationParams, params, window)
        return self._json(vt.Calibration, _op("getCalibration"), query=_query(p))

    def calibration_patch(
        self, params: t.Optional[vt.GetCalibrationParams] = None, **window: t.Any
    ) -> str:
        """Returns the calibration's suggestion as a policy file (YAML); a
        :class:`VouchError` 409 when nothing is suggested."""
        p = dataclasses.replace(
            _params(vt.GetCalibrationParams, params, window), format="patch"
        )
        _, _, raw = self._call(_op("getCalibration"), query=_query(p))
        return raw.decode("utf-8")

    def examples(
        self, params: t.Optional[vt.GetExamplesParams] = None, **window: t.Any
    ) -> vt.JudgeExamples:
        """Returns few-shot judge examples made from the window's overrides
        that give a reason. Keywords: since, until, window, per_class. It
        needs the read scope."""
        p = _params(vt.GetExamplesParams, params, window)
        return self._json(vt.JudgeExamples, _op("getExamples"), query=_query(p))

    def examples_patch(
        self, params: t.Optional[vt.GetExamplesParams] = None, **window: t.Any
    ) -> str:
        """Returns the examples as a policy file setting judge.examples; a
        :class:`VouchError` 409 when no override in the window gives a
        reason."""
        p = dataclasses.replace(_params(vt.GetExamplesParams, params, window), format="patch")
        _, _, raw = self._call(_op("getExamples"), query=_query(p))
        return raw.decode("utf-8")

    # Events.

    def events(
        self, last_event_id: t.Optional[str] = None, timeout: t.Optional[float] = None
    ) -> EventStream:
        """Follows the event stream of the caller's tenant.

        Args:
            last_event_id: Resume after this event (an :attr:`Event.id`);
                without it the stream starts with the events stored from now
                on.
            timeout: Seconds a read may wait for the next line (the server
                sends a comment every 15 seconds); default the client's
                timeout.
        """
        headers = {"Accept": "text/event-stream"}
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        res = self._stream(_op("events"), headers=headers, timeout=timeout)
        return EventStream(res, last_event_id)

    # Transport.

    def _json(
        self,
        cls: t.Type[T],
        op: t.Tuple[str, str],
        query: t.Optional[t.Mapping[str, str]] = None,
        body: t.Any = None,
        headers: t.Optional[t.Mapping[str, str]] = None,
    ) -> T:
        h = dict(headers or {})
        data = None
        if body is not None:
            data = _encode(body)
            h["Content-Type"] = "application/json"
        _, _, raw = self._call(op, query=query, headers=h, body=data)
        return self._decode(cls, raw)

    def _decode(self, cls: t.Type[T], raw: bytes) -> T:
        try:
            value = json.loads(raw)
        except ValueError as e:
            raise VouchError(0, "bad_answer", f"the answer is not JSON: {e}") from e
        return self._convert(cls, value)

    def _convert(self, cls: t.Type[T], value: t.Any) -> T:
        try:
            return from_json(cls, value, strict=self.strict)
        except DecodeError as e:
            raise VouchError(0, "bad_answer", str(e)) from e

    def _call(
        self,
        op: t.Tuple[str, str],
        query: t.Optional[t.Mapping[str, str]] = None,
        headers: t.Optional[t.Mapping[str, str]] = None,
        body: t.Optional[bytes] = None,
    ) -> t.Tuple[int, t.Any, bytes]:
        """Makes a call, retrying 429 and 503 after Retry-After, and returns
        the answer's status, headers and body; any answer other than 2xx
        raises VouchError."""
        attempt = 0
        while True:
            res = self._send(op, query, headers, body, None)
            with res:
                status = res.status
                try:
                    raw = res.read()
                except (socket.timeout, OSError) as e:
                    raise VouchError(0, "timeout", f"{op[0]} {op[1]}: reading: {e}") from e
            if 200 <= status < 300:
                return status, res.headers, raw
            err = _answer_error(status, res.headers, raw)
            if status not in _RETRIED or attempt >= self.retries:
                raise err
            time.sleep(min(max(err.retry_after or 0.0, 0.1), self.max_wait))
            attempt += 1

    def _stream(
        self,
        op: t.Tuple[str, str],
        headers: t.Optional[t.Mapping[str, str]] = None,
        timeout: t.Optional[float] = None,
    ) -> t.Any:
        """Makes a GET whose body the caller reads."""
        res = self._send(op, None, headers, None, timeout)
        if not 200 <= res.status < 300:
            with res:
                raw = res.read()
            raise _answer_error(res.status, res.headers, raw)
        return res

    def _send(
        self,
        op: t.Tuple[str, str],
        query: t.Optional[t.Mapping[str, str]],
        headers: t.Optional[t.Mapping[str, str]],
        body: t.Optional[bytes],
        timeout: t.Optional[float],
    ) -> t.Any:
        method, path = op
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        h = {"User-Agent": f"vouch-python/{__version__}", "Accept": "application/json"}
        h.update(headers or {})
        if self._key:
            h["Authorization"] = "Bearer " + self._key
        req = urllib.request.Request(url, data=body, headers=h, method=method)
        try:
            return self._opener.open(req, timeout=timeout or self.timeout)
        except urllib.error.HTTPError as e:
            return e
        except urllib.error.URLError as e:
            raise VouchError(0, "unreachable", f"{method} {path}: {e.reason}") from e
        except (socket.timeout, OSError) as e:
            raise VouchError(0, "unreachable", f"{method} {path}: {e}") from e


def _op(operation_id: str, **path_params: str) -> t.Tuple[str, str]:
    """Returns the method and path of an operation, its path parameters
    filled in."""
    method, path = vt.OPERATIONS[operation_id]
    for k, v in path_params.items():
        path = path.replace("{" + k + "}", urllib.parse.quote(v, safe=""))
    return method, path


def _encode(value: t.Any) -> bytes:
    return json.dumps(to_json(value), separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def _params(cls: t.Type[T], params: t.Optional[T], fields: t.Mapping[str, t.Any]) -> T:
    if params is not None and fields:
        raise TypeError(f"give a {cls.__name__} or its fields as keywords, not both")
    if params is None:
        return cls(**fields)
    return params


def _query(params: t.Any) -> t.Dict[str, str]:
    """Encodes query parameters (a dataclass) as strings."""
    out = {}
    for k, v in to_json(params).items():
        if isinstance(v, bool):
            out[k] = "true" if v else "false"
        else:
            out[k] = str(v)
    return out


def _answer_error(status: int, headers: t.Any, raw: bytes) -> VouchError:
    """Reads the server's error body."""
    text = raw.decode("utf-8", "replace").strip()
    err = VouchError(status, _status_text(status), text)
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        first = from_json(vt.Problem, body["error"])
        err.code, err.message = str(first.code), str(first.message)
        problems = body.get("errors")
        if isinstance(problems, list) and problems:
            err.problems = [from_json(vt.Problem, p) for p in problems]
        else:
            err.problems = [first]
    ra = headers.get("Retry-After") if headers is not None else None
    if ra is not None:
        try:
            seconds = int(ra)
        except ValueError:
            seconds = -1
        if seconds >= 0:
            err.retry_after = float(seconds)
    return err


def _status_text(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return str(status)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False

