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


def test_a_sample_stored_with_its_top_jobs_as_json_still_reads() -> None:
    """Blobs written before the top jobs became columns (``VH2``) read the same."""
    import zlib

    import numpy as np

    from monitoring import codec

    data = sample(queues={"a": 0.25, "b": 0.5}, top=[["ns/j1", "a", 0.75, "cpu"],
                                                    ["ns/j2", "b", 0.5, "memory"]])  # fmt: skip
    parts = codec._split(encode(data))
    assert parts is not None
    drf = data["drf"]
    names = list(drf["queues"])
    stats = np.array([drf["queues"][n] for n in names], dtype=np.float64)
    old_drf = codec._part(names) + codec._part(drf["top"]) + stats.tobytes()
    chunks = (zlib.decompress(parts[0]), zlib.decompress(parts[1]), old_drf)
    blob = b"VH2\x00" + b"".join(codec._sized(zlib.compress(c)) for c in chunks)

    assert decode(blob) == data
    assert codec.decode_drf_block(blob).columns()[0] == ["ns/j1", "ns/j2"]


def test_top_jobs_read_back_as_columns() -> None:
    from monitoring.codec import decode_drf_block

    top = [["ns/j1", "a", 0.75, "cpu"], ["ns/j2", "b", 0.5, "memory"]]
    block = decode_drf_block(encode(sample(queues={"a": 0.25, "b": 0.5}, top=top)))

    uids, queues, shares, dominants = block.columns()
    assert (uids, queues, shares.tolist(), dominants) == (
        ["ns/j1", "ns/j2"], ["a", "b"], [0.75, 0.5], ["cpu", "memory"])  # fmt: skip
    assert block.top == top
    assert decode_drf_block(encode(sample(queues={"a": 0.1}, top=[]))).top == []
