"""Extender plugin: hand a session's questions to an HTTP service the operator runs.

Volcano's counterpart: ``pkg/scheduler/plugins/extender``. Each verb the conf names
(``extender.predicateVerb: predicate`` ...) is POSTed as JSON to ``extender.urlPrefix/<verb>``
and its answer becomes this plugin's answer to the session; a verb left unset registers nothing.

==================  ===========================  ====================================  ==========================
verb argument       session hook                 request → answer read                 on a failed call
==================  ===========================  ====================================  ==========================
onSessionOpenVerb   (session open)               {Jobs, Nodes, Queues, ...} → nothing  not ignorable: the plugin
                                                                                       registers nothing at all
onSessionCloseVerb  (session close)              {} → nothing                          logged
predicateVerb       predicate                    {task, node} → {status, code}         ignorable: fits; else the
                                                                                       node refuses (code Error)
prioritizeVerb      batch node order             {task, nodes} → {nodeScore,           ignorable: no score; else
                                                 errorMessage}                         no node is chosen
preemptableVerb     preemptable                  {evictor, evictees} → {status,        no victims
reclaimableVerb     reclaimable                  victims} (status 0 abstains)          no victims
queueOverusedVerb   overused                     {queue} → {overused}                  overused unless ignorable
jobEnqueueableVerb  job enqueueable              {job} → {status} (a vote)             Permit if ignorable, else
                                                                                       Reject
jobEnqueuedVerb     job enqueued                 {job} → nothing                       logged
jobReadyVerb        job ready                    {job} → {status}                      ready unless ignorable
allocateFuncVerb    event handler (allocate)     {task} → {errorMessage}               logged
deallocateFuncVerb  event handler (deallocate)   {task} → {errorMessage}               logged
==================  ===========================  ====================================  ==========================

One difference: Volcano turns an event's ``errorMessage`` (or a failed call, when not ignorable)
into ``Event.Err``, which makes the statement undo that allocation. Our ``Event`` carries no
error, so the answer is logged and the allocation stands.

Task questions (predicate, prioritize, preemptable, reclaimable, the events) are asked only for
pods requesting one of ``extender.managedResources`` when that list is given (Volcano's
``IsInterested``); the others answer as if the extender were absent. A call waits at most
``extender.httpTimeout`` (a Go duration, 1s by default), so a dead extender slows a session but
never hangs the worker. This is the engine's one plugin doing I/O: a snapshot and a conf no
longer fix the decisions alone, the extender's answers do too.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import numpy as np

from apis.durations import parse_duration
from scheduler.engine.api.types import PERMIT, REJECT, FitCode, PredicateStatus
from scheduler.engine.framework import ArgSpec, Plugin, Session, register_plugin
from scheduler.engine.framework.interface import Event, EventHandler
from scheduler.engine.plugins.extender_client import ExtenderClient, ExtenderError
from scheduler.engine.plugins.extender_wire import (
    FIT_CODES,
    WireError,
    job_json,
    node_json,
    queue_json,
    read_bool,
    read_int,
    read_scores,
    read_str,
    read_victim_uids,
    task_json,
)

if TYPE_CHECKING:
    import numpy.typing as npt

    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.api.queue_info import QueueInfo
    from scheduler.engine.api.task_info import TaskInfo

__all__ = ["DEFAULT_HTTP_TIMEOUT", "VERBS", "ExtenderPlugin"]

logger = logging.getLogger(__name__)

DEFAULT_HTTP_TIMEOUT = 1.0  # seconds: Volcano's default when httpTimeout is unset or unreadable

# The verb arguments, each ``extender.<verb>Verb``.
VERBS: tuple[str, ...] = (
    "onSessionOpen",
    "onSessionClose",
    "predicate",
    "prioritize",
    "preemptable",
    "reclaimable",
    "queueOverused",
    "jobEnqueueable",
    "jobEnqueued",
    "jobReady",
    "allocateFunc",
    "deallocateFunc",
)

_URL_PREFIX = "extender.urlPrefix"
_HTTP_TIMEOUT = "extender.httpTimeout"
_IGNORABLE = "extender.ignorable"
_MANAGED = "extender.managedResources"


def _verb_key(verb: str) -> str:
    return f"extender.{verb}Verb"


def parse_timeout(text: str) -> float:
    """Return the call timeout in seconds: ``text`` as a Go duration, else Volcano's 1s.

    Volcano ignores an unreadable duration. A zero or negative one would let Go wait forever;
    here it falls back to 1s too, so no conf can make the worker wait on an extender for ever.
    """
    if not text:
        return DEFAULT_HTTP_TIMEOUT
    try:
        seconds = parse_duration(text)
    except ValueError:
        logger.warning("extender: httpTimeout %r is not a duration; using 1s", text)
        return DEFAULT_HTTP_TIMEOUT
    return seconds if seconds > 0 else DEFAULT_HTTP_TIMEOUT


@register_plugin
class ExtenderPlugin(Plugin):
    """Answers the session's questions by asking an external HTTP extender."""

    name = "extender"
    arguments_schema = (
        ArgSpec(_URL_PREFIX, str, "", help="the extender's address, e.g. http://127.0.0.1:8888"),
        ArgSpec(
            _HTTP_TIMEOUT, str, "1s", help="how long one call may take (a Go duration, e.g. 100ms)"
        ),
        ArgSpec(
            _IGNORABLE,
            bool,
            False,
            help="a failed or slow call is ignored instead of refusing (see each verb)",
        ),
        ArgSpec(
            _MANAGED,
            str,
            "",
            help="only pods requesting one of these resources are sent (a list; empty: all)",
            listed=True,
        ),
        *(
            ArgSpec(_verb_key(verb), str, "", help=f"the path POSTed for {verb} (empty: not asked)")
            for verb in VERBS
        ),
    )

    def on_session_open(self, ssn: Session) -> None:
        """Open the extender's session, then register a function for every verb given."""
        args = self.arguments
        self.ignorable = args.get_bool(_IGNORABLE)
        self.managed = frozenset(
            name.strip() for name in args.get_str(_MANAGED).split(",") if name.strip()
        )
        self.verbs = {verb: args.get_str(_verb_key(verb)) for verb in VERBS}
        self.client = ExtenderClient(
            args.get_str(_URL_PREFIX), parse_timeout(args.get_str(_HTTP_TIMEOUT))
        )
        self._ssn = ssn
        if self.verbs["onSessionOpen"]:
            try:
                self._call("onSessionOpen", _session_open_request(ssn), answer=False)
            except ExtenderError as error:
                logger.warning("extender: OnSessionOpen failed with error %s", error)
                if not self.ignorable:
                    return
        self._register(ssn)

    def on_session_close(self, ssn: Session) -> None:
        """Tell the extender the session is over and close the connection."""
        try:
            if self.verbs.get("onSessionClose"):
                self._call("onSessionClose", {}, answer=False)
        except ExtenderError as error:
            logger.warning("extender: OnSessionClose failed with error %s", error)
        finally:
            self.client.close()

    # --- plumbing --------------------------------------------------------------------------------
    def _call(self, verb: str, request: dict[str, Any], *, answer: bool = True) -> Any:
        """POST ``request`` to the verb's path; return the answer (raises ExtenderError)."""
        return self.client.send(self.verbs[verb], request, answer=answer)

    def is_interested(self, task: TaskInfo) -> bool:
        """Return True when the extender manages a resource ``task`` asks for (or manages all)."""
        if not self.managed:
            return True
        if any(name in self.managed for name in task.resreq.names()):
            return True
        init = task.init_resreq
        return init is not None and any(name in self.managed for name in init.names())

    def _register(self, ssn: Session) -> None:
        verbs = self.verbs
        if verbs["predicate"]:
            ssn.add_predicate_fn(self.name, self._predicate)
        if verbs["prioritize"]:
            ssn.add_batch_node_order_fn(self.name, self._prioritize)
        if verbs["preemptable"]:
            ssn.add_preemptable_fn(self.name, self._victims_of("preemptable"))
        if verbs["reclaimable"]:
            ssn.add_reclaimable_fn(self.name, self._victims_of("reclaimable"))
        if verbs["jobEnqueueable"]:
            ssn.add_job_enqueueable_fn(self.name, self._job_enqueueable)
        if verbs["jobEnqueued"]:
            ssn.add_job_enqueued_fn(self.name, self._job_enqueued)
        if verbs["queueOverused"]:
            ssn.add_overused_fn(self.name, self._queue_overused)
        if verbs["jobReady"]:
            ssn.add_job_ready_fn(self.name, self._job_ready)
        ssn.add_event_handler(
            EventHandler(
                allocate_func=self._on_event("allocateFunc") if verbs["allocateFunc"] else None,
                deallocate_func=(
                    self._on_event("deallocateFunc") if verbs["deallocateFunc"] else None
                ),
            )
        )

    # --- the session's questions -----------------------------------------------------------------
    def _predicate(self, task: TaskInfo, node: Any) -> PredicateStatus | None:
        if not self.is_interested(task):
            return None
        try:
            answer = self._call("predicate", {"task": task_json(task), "node": node_json(node)})
            message, code = read_str(answer, "status"), read_int(answer, "code")
        except (ExtenderError, WireError) as error:
            logger.warning("extender: Predicate failed with error %s", error)
            if self.ignorable:
                return None
            return PredicateStatus(str(error), FitCode.ERROR, self.name)
        if not message:
            return None
        # An old extender answers a message with code 0 (Success): Volcano reads that as Error.
        return PredicateStatus(message, FIT_CODES.get(code, FitCode.ERROR), self.name)

    def _prioritize(self, task: TaskInfo, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        scores = np.zeros(len(rows), dtype=np.float64)
        if not self.is_interested(task) or len(rows) == 0:
            return scores
        nodes = [self._ssn.node_list[row] for row in rows.tolist()]
        try:
            answer = self._call(
                "prioritize", {"task": task_json(task), "nodes": [node_json(n) for n in nodes]}
            )
            given, message = read_scores(answer, "nodeScore"), read_str(answer, "errorMessage")
        except (ExtenderError, WireError) as error:
            logger.warning("extender: Prioritize failed with error %s", error)
            if self.ignorable:
                return scores
            given, message = None, str(error)
        if message or given is None:
            logger.warning("extender: Prioritize refused %s: %s", task.uid, message)
            # Volcano's PrioritizeNodes drops every score on an error, so allocate chooses no
            # node. Backfill (BestEffort pods) then dereferences that missing node and panics;
            # here a BestEffort pod just gets no score from the extender.
            if not task.best_effort:
                scores.fill(-np.inf)
            return scores
        for i, node in enumerate(nodes):
            scores[i] = given.get(node.name, 0.0)
        return scores

    def _victims_of(self, verb: str) -> Any:
        def victims(evictor: TaskInfo, evictees: list[TaskInfo]) -> list[TaskInfo] | None:
            if not self.is_interested(evictor):
                return None  # Volcano's Abstain
            request = {"evictor": task_json(evictor), "evictees": [task_json(t) for t in evictees]}
            try:
                answer = self._call(verb, request)
                status, uids = read_int(answer, "status"), read_victim_uids(answer, "victims")
            except (ExtenderError, WireError) as error:
                # Ignorable or not, Volcano answers no victims (Permit or Reject, nil list).
                logger.warning("extender: %s failed with error %s", verb, error)
                return []
            if status == 0:
                return None
            by_uid = {t.uid: t for t in evictees}
            return [by_uid[uid] for uid in uids or () if uid in by_uid]

        return victims

    def _job_enqueueable(self, job: JobInfo) -> int:
        try:
            return read_int(self._call("jobEnqueueable", {"job": job_json(job)}), "status")
        except (ExtenderError, WireError) as error:
            logger.warning("extender: JobEnqueueable failed with error %s", error)
            return PERMIT if self.ignorable else REJECT

    def _job_enqueued(self, job: JobInfo) -> None:
        try:
            self._call("jobEnqueued", {"job": job_json(job)})
        except (ExtenderError, WireError) as error:
            logger.warning("extender: JobEnqueued failed with error %s", error)

    def _queue_overused(self, queue: QueueInfo) -> bool:
        try:
            return read_bool(self._call("queueOverused", {"queue": queue_json(queue)}), "overused")
        except (ExtenderError, WireError) as error:
            logger.warning("extender: QueueOverused failed with error %s", error)
            return not self.ignorable

    def _job_ready(self, job: JobInfo) -> bool:
        try:
            return read_bool(self._call("jobReady", {"job": job_json(job)}), "status")
        except (ExtenderError, WireError) as error:
            logger.warning("extender: JobReady failed with error %s", error)
            return not self.ignorable

    def _on_event(self, verb: str) -> Any:
        def handle(event: Event) -> None:
            if not self.is_interested(event.task):
                return
            try:
                message = read_str(
                    self._call(verb, {"task": task_json(event.task)}), "errorMessage"
                )
            except (ExtenderError, WireError) as error:
                logger.warning("extender: %s failed with error %s", verb, error)
                return
            if message:
                logger.warning("extender: %s answered %s for %s", verb, message, event.task.uid)

        return handle


def _session_open_request(ssn: Session) -> dict[str, Any]:
    """Return ``OnSessionOpenRequest``: untagged, so its fields go out under their Go names."""
    return {
        "Jobs": {uid: job_json(job) for uid, job in ssn.jobs.items()},
        "Nodes": {name: node_json(node) for name, node in ssn.nodes.items()},
        "Queues": {name: queue_json(queue) for name, queue in ssn.queues.items()},
        "NamespaceInfo": {},
        "RevocableNodes": {},
        "NodeList": None,
    }
