"""deviceshare plugin: shared GPUs (gpushare by memory or by card) and vGPUs (HAMi-core).

Volcano's counterpart: ``pkg/scheduler/plugins/deviceshare`` with the device models of
``pkg/scheduler/api/devices/nvidia`` (here ``api/devices``) and the device half of the predicates
plugin's allocate handler. At session open every node's cards are read from what the device
plugins registered (gpushare: capacity ``volcano.sh/gpu-memory`` and ``gpu-number``; vGPU: the
annotation ``volcano.sh/node-vgpu-register``) and the pods already on it are booked from their
assignment annotations (``volcano.sh/gpu-index``, ``volcano.sh/vgpu-ids-new``). The filter refuses
a node whose cards cannot hold the pod, in Volcano's words; the score (only when
``deviceshare.ScheduleWeight`` > 0) is the vGPU card score. When a pod is placed its cards are
chosen and booked, so later pods of the session see them, and the annotations Volcano writes on
the pod at bind are put in ``Decisions.pod_annotations``.

A node without registered devices passes the filter (Volcano skips devices a node lacks); the
extended resources themselves are checked by node fit like any other. With no device kind enabled,
or no node registering one, nothing is registered: the plugin costs nothing per pod.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.devices import gpushare, vgpu
from scheduler.engine.api.devices.gpushare import GpuShareDevices
from scheduler.engine.api.devices.vgpu import VgpuDevices
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import FitCode, PredicateStatus, TaskStatus
from scheduler.engine.framework import (
    ArgSpec,
    Arguments,
    Event,
    EventHandler,
    Plugin,
    Session,
    register_plugin,
)
from scheduler.engine.plugins.deviceshare_exclusive import (
    ExclusiveCards,
    check_rules,
    matching_rules,
    read_rules,
)

__all__ = ["DeviceSharePlugin"]

GPU_SHARING_ENABLE = "deviceshare.GPUSharingEnable"
GPU_NUMBER_ENABLE = "deviceshare.GPUNumberEnable"
VGPU_ENABLE = "deviceshare.VGPUEnable"
NODE_LOCK_ENABLE = "deviceshare.NodeLockEnable"
SCHEDULE_POLICY = "deviceshare.SchedulePolicy"
SCHEDULE_WEIGHT = "deviceshare.ScheduleWeight"
GPU_EXCLUSIVE_RULES = "deviceshare.GPUExclusiveRules"
VGPU_REFUSAL = "hami-vgpuDeviceSharing error"
# The pod annotations whose values change which cards a vGPU pod may take.
_VGPU_POD_KEYS = (
    vgpu.USE_GPU_TYPE, vgpu.NOUSE_GPU_TYPE, vgpu.USE_UUID, vgpu.NOUSE_UUID, vgpu.MODE,
    vgpu.PODGROUP_POLICY,
)  # fmt: skip
# Tasks in these states hold no device in Volcano's accounting (``NodeInfo.addResource``).
_HOLDS_NO_DEVICE = frozenset({TaskStatus.RELEASING, TaskStatus.PIPELINED})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@register_plugin
class DeviceSharePlugin(Plugin):
    """Device filter and score; card choice and booking as pods are placed."""

    name = "deviceshare"
    arguments_schema = (
        ArgSpec(GPU_SHARING_ENABLE, bool, False,
                help="share whole GPUs by memory (pods limit volcano.sh/gpu-memory)"),
        ArgSpec(GPU_NUMBER_ENABLE, bool, False,
                help="hand out whole GPUs by number (pods limit volcano.sh/gpu-number)"),
        ArgSpec(VGPU_ENABLE, bool, False,
                help="schedule vGPUs (volcano.sh/vgpu-number, vgpu-memory, vgpu-cores)"),
        ArgSpec(NODE_LOCK_ENABLE, bool, False,
                help="lock a node while a device pod binds to it"),
        ArgSpec(SCHEDULE_POLICY, str, "",
                help="how vGPU cards are chosen: binpack, spread, or empty (last card first)"),
        ArgSpec(SCHEDULE_WEIGHT, int, 0,
                help="weight of the device node score; 0 leaves the score out"),
        ArgSpec(GPU_EXCLUSIVE_RULES, str, "", nested=check_rules,
                help="a YAML list of label maps ({team: a}); pods matching a rule never share "
                "a vGPU card with other pods of that rule"),
        ArgSpec("deviceshare.KnownGeometriesCMName", str, "volcano-vgpu-device-config",
                help="ConfigMap of MIG geometries (MIG is not modelled)"),
        ArgSpec("deviceshare.KnownGeometriesCMNamespace", str, "kube-system",
                help="namespace of that ConfigMap"),
        ArgSpec("deviceshare.AscendMindClusterVNPUEnable", bool, False,
                help="Ascend vNPU (MindCluster); not modelled"),
        ArgSpec("deviceshare.AscendHAMiVNPUEnable", bool, False,
                help="Ascend vNPU (HAMi); not modelled"),
    )  # fmt: skip

    @classmethod
    def check_arguments(cls, arguments: Arguments) -> tuple[str, str] | None:
        """Refuse the combinations Volcano exits on: (argument, message), or None."""
        sharing = arguments.get_bool(GPU_SHARING_ENABLE)
        number = arguments.get_bool(GPU_NUMBER_ENABLE)
        if sharing and number:
            return GPU_NUMBER_ENABLE, "can not define true in both gpu sharing and gpu number"
        if (sharing or number) and arguments.get_bool(VGPU_ENABLE):
            return VGPU_ENABLE, "gpu-share and vgpu can't be used together"
        return None

    def on_session_open(self, ssn: Session) -> None:
        """Read every node's cards, book the pods on them, then register the hooks."""
        self._ssn = ssn
        self._sharing = self.arguments.get_bool(GPU_SHARING_ENABLE)
        self._number = self.arguments.get_bool(GPU_NUMBER_ENABLE)
        self._vgpu_on = self.arguments.get_bool(VGPU_ENABLE)
        self._policy = self.arguments.get_str(SCHEDULE_POLICY)
        self._weight = self.arguments.get_int(SCHEDULE_WEIGHT)
        self._gpushare: dict[int, GpuShareDevices] = {}
        self._vgpu: dict[int, VgpuDevices] = {}
        if self._sharing or self._number:
            for node in ssn.node_list:
                share = GpuShareDevices.from_node(node)
                if share is not None:
                    self._gpushare[node.index] = share
                    self._book_running(node)
        if self._vgpu_on:
            for node in ssn.node_list:
                cards = VgpuDevices.from_node(node)
                if cards is not None:
                    self._vgpu[node.index] = cards
                    self._book_running(node)
        if not self._gpushare and not self._vgpu:
            return
        self._rules = read_rules(self.arguments.get_str(GPU_EXCLUSIVE_RULES))
        self._exclusive: dict[int, ExclusiveCards] = {}
        if self._rules:
            for row, cards in self._vgpu.items():
                if cards.mode == vgpu.HAMI_CORE:
                    exclusive = ExclusiveCards(cards, self._rules)
                    exclusive.track_existing(list(ssn.node_list[row].tasks.values()))
                    self._exclusive[row] = exclusive
        self._split_keys(ssn)
        ssn.add_predicate_fn(self.name, self._predicate)
        ssn.add_batch_predicate_fn(self.name, self._batch_predicate, row=self._row_predicate)
        if self._weight > 0:
            ssn.add_batch_node_order_fn(self.name, self._batch_score, row=self._row_score)
        ssn.add_event_handler(EventHandler(self._allocated, self._deallocated))

    def on_session_close(self, ssn: Session) -> None:
        """Keep the assignments of the pods bound this session (pipelined pods bind later)."""
        annotations = ssn.decisions.pod_annotations
        for uid in [uid for uid in annotations if uid not in ssn.decisions.binds]:
            del annotations[uid]

    # --- what a pod asks -------------------------------------------------------------------
    def _asks_gpushare(self, task: TaskInfo) -> bool:
        devices = task.device_containers
        return (self._sharing and gpushare.pod_gpu_memory(devices) > 0) or (
            self._number and gpushare.pod_gpu_number(devices) > 0
        )

    def _asks_vgpu(self, task: TaskInfo) -> bool:
        return self._vgpu_on and vgpu.has_vgpu_request(task.device_containers)

    def _group(self, task: TaskInfo) -> str:
        return vgpu.pod_group_key(task.namespace, task.annotations)

    def _split_keys(self, ssn: Session) -> None:
        """Give device pods node-answer cache keys of their own.

        Node answers are cached per template and summed request; a device pod's answer also
        depends on its per-container request and on the annotations that filter cards.
        """
        for job in ssn.jobs.values():
            for task in job.tasks.values():
                devices = task.device_containers
                if devices is None or task.status != TaskStatus.PENDING:
                    continue
                annotations = task.annotations
                extra: tuple[object, ...] = (
                    "deviceshare",
                    devices.key(),
                    tuple(annotations.get(k) for k in _VGPU_POD_KEYS),
                    self._group(task) if annotations.get(vgpu.PODGROUP_POLICY) else "",
                    matching_rules(task.labels, self._rules),
                )
                task.template_key = (*(task.template_key or task.compute_template_key()), extra)

    # --- booking ------------------------------------------------------------------------------
    def _book_running(self, node: NodeInfo) -> None:
        """Book the node's pods on the cards their assignment annotations name."""
        for task in node.tasks.values():
            if task.status not in _HOLDS_NO_DEVICE:
                self._book_from_annotations(task, node.index)

    def _book_from_annotations(self, task: TaskInfo, row: int) -> None:
        share = self._gpushare.get(row)
        if share is not None:
            devices = task.device_containers
            memory = gpushare.pod_gpu_memory(devices)
            if memory > 0 or gpushare.pod_gpu_number(devices) > 0:
                share.book(task.uid, memory, gpushare.gpu_index(task.annotations))
        cards = self._vgpu.get(row)
        if cards is not None and vgpu.ASSIGNED_IDS in task.annotations:
            cards.book(task.uid, task.annotations[vgpu.ASSIGNED_IDS], self._group(task))

    def _allocated(self, event: Event) -> None:
        """Choose and book the cards of a pod just placed; re-book a pod whose eviction is undone."""
        task = event.task
        node = self._ssn.nodes.get(task.node_name)
        if node is None:
            return
        exclusive = self._exclusive.get(node.index)
        if task.status not in (TaskStatus.ALLOCATED, TaskStatus.PIPELINED):
            self._book_from_annotations(task, node.index)
            if exclusive is not None:
                exclusive.allocated(task)
            return
        if task.device_containers is None:  # asks no device: nothing to choose or book
            return
        written: dict[str, str] = {}
        share = self._gpushare.get(node.index)
        if share is not None and self._asks_gpushare(task):
            stamp = str(_unix_nanos(self._ssn.now))
            written.update(share.allocate(task.uid, task.device_containers, stamp) or {})
        cards = self._vgpu.get(node.index)
        if cards is not None and self._asks_vgpu(task):
            fit = self._vgpu_fit(task, cards)
            if fit.fits:
                written.update(cards.allocate(task.uid, fit, self._group(task), self._ssn.now))
                if exclusive is not None:
                    exclusive.allocated(task)
        if written:
            self._ssn.decisions.pod_annotations[task.uid] = written

    def _deallocated(self, event: Event) -> None:
        """Give back the cards of a pod taken off its node or evicted."""
        task = event.task
        node = self._ssn.nodes.get(task.node_name)
        if node is None:
            return
        self._ssn.decisions.pod_annotations.pop(task.uid, None)
        share = self._gpushare.get(node.index)
        if share is not None:
            share.unbook(task.uid, [])
        cards = self._vgpu.get(node.index)
        if cards is not None:
            cards.unbook(task.uid)
            exclusive = self._exclusive.get(node.index)
            if exclusive is not None:
                exclusive.released(task.uid)

    # --- filter and score ---------------------------------------------------------------------
    def _vgpu_fit(self, task: TaskInfo, cards: VgpuDevices) -> vgpu.Fit:
        exclusive = self._exclusive.get(cards.row) if self._exclusive else None
        return cards.fit(
            vgpu.container_requests(task.device_containers),
            task.annotations,
            self._group(task),
            self._policy,
            exclusive.reserved(task.labels) if exclusive is not None else frozenset(),
        )

    def _refusal(self, task: TaskInfo, row: int) -> str:
        """Return why the node's cards cannot hold the pod, in Volcano's words ('' if they can)."""
        share = self._gpushare.get(row)
        if share is not None and self._asks_gpushare(task):
            reason = share.filter(
                task.device_containers, sharing=self._sharing, number=self._number
            )
            if reason:
                return reason
        cards = self._vgpu.get(row)
        if cards is not None and self._asks_vgpu(task) and not self._vgpu_fit(task, cards).fits:
            return VGPU_REFUSAL
        return ""

    def _predicate(self, task: TaskInfo, node: NodeInfo) -> PredicateStatus | None:
        if task.device_containers is None:
            return None
        reason = self._refusal(task, node.index)
        if not reason:
            return None
        return PredicateStatus(reason, FitCode.UNSCHEDULABLE, plugin=self.name)

    def _row_predicate(self, task: TaskInfo, row: int) -> bool:
        return task.device_containers is None or not self._refusal(task, row)

    def _batch_predicate(self, task: TaskInfo, rows: IntArray) -> BoolArray:
        fits: BoolArray = np.ones(len(rows), dtype=np.bool_)
        if task.device_containers is None:
            return fits
        for i, row in enumerate(rows.tolist()):
            if row in self._gpushare or row in self._vgpu:
                fits[i] = not self._refusal(task, row)
        return fits

    def _row_score(self, task: TaskInfo, row: int) -> float:
        """Return floor(card score + 0.5) x weight (only vGPU cards score; gpushare scores 0)."""
        cards = self._vgpu.get(row)
        if cards is None or not self._asks_vgpu(task):
            return 0.0
        fit = self._vgpu_fit(task, cards)
        return float(math.floor(fit.score + 0.5) * self._weight) if fit.fits else 0.0

    def _batch_score(self, task: TaskInfo, rows: IntArray) -> FloatArray:
        scores: FloatArray = np.zeros(len(rows), dtype=np.float64)
        if not self._vgpu or not self._asks_vgpu(task):
            return scores
        for i, row in enumerate(rows.tolist()):
            if row in self._vgpu:
                scores[i] = self._row_score(task, row)
        return scores


def _unix_nanos(now: datetime) -> int:
    """Return ``now`` as Unix nanoseconds (Go's ``time.Now().UnixNano()``)."""
    moment = now if now.tzinfo else now.replace(tzinfo=UTC)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000
