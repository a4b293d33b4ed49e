"""A stored sample reads back as the figures that were stored (no database)."""

from __future__ import annotations

from monitoring.codec import decode, encode
from tests.monitoring.helpers import sample


def test_a_sample_reads_back_unchanged() -> None:
    data = sample(queues={"a": 0.25, "b": 0.5}, weight=3, binds=2, preempt=1)
    data["queues"]["allocated"][0] = [2**62, 7]  # an int64 amount stays exact

    assert decode(encode(data)) == data


def test_a_sample_without_queues_or_resources_reads_back() -> None:
    data = sample(queues={"a": 0.1})
    data["resources"] = []
    for key in ("allocated", "deserved", "guarantee", "capability"):
        data["queues"][key] = [[]]

    assert decode(encode(data)) == data


def _single_stream(data: dict[str, object]) -> bytes:
    """A blob as the first layout wrote it: layout JSON, blocks and the rest in one zlib stream."""
    import json
    import zlib

    import numpy as np

    queues: dict[str, list[object]] = data["queues"]  # type: ignore[assignment]
    scalars = [k for k in ("weight", "pending", "inqueue", "running", "share") if k in queues]
    amounts = ["allocated", "deserved", "guarantee", "capability"]
    layout = {"resources": data["resources"], "name": queues["name"], "scalars": scalars,
              "amounts": amounts}  # fmt: skip
    rest = {k: v for k, v in data.items() if k not in ("queues", "resources")}

    def part(value: object) -> bytes:
        text = json.dumps(value).encode()
        return len(text).to_bytes(4, "little") + text

    body = (
        part(layout)
        + np.array([queues[k] for k in scalars], dtype=np.float64).tobytes()
        + np.array([queues[k] for k in amounts], dtype=np.int64).tobytes()
        + part(rest)
    )
    return zlib.compress(body)


def test_a_sample_stored_before_the_parts_were_split_still_reads() -> None:
    from monitoring.codec import decode_drf_block, decode_sessions

    data = sample(queues={"a": 0.25, "b": 0.5}, preempt=1)
    for key in ("pods_pending", "pods_running"):
        del data["queues"][key]
    blob = _single_stream(data)

    assert decode(blob) == data
    assert decode_sessions(blob)["counts"]["evictions_by_action"] == {"preempt": 1}
    assert decode_drf_block(blob).top == data["drf"]["top"]


def test_each_part_reads_alone() -> None:
    from monitoring.codec import decode_blocks, decode_drf_block, decode_sessions

    data = sample(queues={"a": 0.25, "b": 0.5}, binds=4)
    blob = encode(data)

    assert decode_blocks(blob).names == ["a", "b"]
    assert decode_sessions(blob)["counts"]["binds"] == 4
    drf = decode_drf_block(blob)
    assert drf.names == ["a"]
    assert drf.stats.tolist() == [[1.0, 0.5, 0.5]]
