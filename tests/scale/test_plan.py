"""Shard plans: every item in exactly one shard, in order, within the sizes, at the lines the readers count."""
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vineparse.scale.plan import (Part, Shard, expand_inputs, plan_documents, plan_file, plan_inputs, read_shard,
                                  InputChangedError, split_items)

LINE = st.text(alphabet="ab \t\r", max_size=6).map(lambda t: t.encode("utf-8"))


def items_of(shards, layout):
    return [(line, data) for shard in shards for part, chunk in read_shard(shard)
            for line, data in split_items(layout, part, chunk)]


def naive_lines(data: bytes):
    """One item a line, as a person counts them (the final line may lack its newline)."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return [(i + 1, line[:-1] if line.endswith(b"\r") else line) for i, line in enumerate(lines)]


def naive_blocks(data: bytes):
    """(first line, lines joined) of every run of non-blank lines."""
    out, block, start = [], [], None
    for number, line in enumerate(data.split(b"\n"), 1):
        if line.strip():
            start = number if start is None else start
            block.append(line)
        elif block:
            out.append((start, b"\n".join(block)))
            block, start = [], None
    if block:
        out.append((start, b"\n".join(block)))
    return out


@given(lines=st.lists(LINE, max_size=40), final_newline=st.booleans(), shard_size=st.integers(1, 7),
       max_bytes=st.integers(1, 60), layout=st.sampled_from(["lines", "conllu"]))
def test_every_item_is_in_exactly_one_shard_in_order(tmp_path_factory, lines, final_newline, shard_size, max_bytes,
                                                     layout):
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    path = tmp_path_factory.mktemp("plan") / "input"
    path.write_bytes(data)
    plan = plan_file(str(path), layout, shard_size, max_bytes)
    expected = naive_lines(data) if layout == "lines" else naive_blocks(data)
    assert items_of(plan.shards, layout) == expected
    assert plan.size == len(data) and plan.sha256 == hashlib.sha256(data).hexdigest()
    assert sum(s.items for s in plan.shards) == len(expected)
    offset = 0
    for shard in plan.shards:
        (part,) = shard.parts
        assert part.offset == offset and 1 <= shard.items <= shard_size
        assert data[:offset].count(b"\n") + 1 == part.first_line
        chunk = data[part.offset:part.offset + part.length]
        items = split_items(layout, part, chunk)
        assert len(items) == shard.items
        # A shard closes at the first item that reaches the byte bound: its items before the last stay below.
        last_start = sum(len(line) + 1 for line in chunk.split(b"\n")[:items[-1][0] - part.first_line])
        assert shard.items == 1 or last_start < max_bytes
        offset += part.length
    # Blank lines after the last block belong to no shard; every other byte is in one.
    assert offset == len(data) if layout == "lines" else not data[offset:].strip()


def test_a_byte_order_mark_and_crlf_are_not_part_of_the_items(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    shards = plan_file(str(path), "lines", 1).shards
    assert [data for _, data in items_of(shards, "lines")] == [b"one", b"two"]


def test_file_documents_and_changed_input(tmp_path):
    paths = []
    for k in range(5):
        paths.append(str(tmp_path / f"{k}.txt"))
        (tmp_path / f"{k}.txt").write_text(f"document {k}\nsecond line\n")
    plans, shards = plan_inputs(expand_inputs(tmp_path, "files"), "files", 2)
    assert [len(s.parts) for s in shards] == [2, 2, 1] and [p.path for p in plans] == paths
    expected = [f"document {k}\nsecond line\n".encode() for k in range(5)]
    assert [data for _, data in items_of(shards, "files")] == expected
    assert plan_documents(paths, 2)[0].shards == tuple(shards)
    (tmp_path / "3.txt").write_text("document 3\nsecond line!\n")
    read_shard(shards[0])
    with pytest.raises(InputChangedError, match="2.txt:1: the input changed"):
        read_shard(shards[1])


def test_inputs_are_checked(tmp_path):
    (tmp_path / "a.conllu").write_text("")
    (tmp_path / "b.txt").write_text("")
    assert expand_inputs(tmp_path, "conllu") == [str(tmp_path / "a.conllu")]
    assert expand_inputs([tmp_path], "lines") == [str(tmp_path / "a.conllu"), str(tmp_path / "b.txt")]
    assert expand_inputs(tmp_path / "b.txt", "lines") == [str(tmp_path / "b.txt")]
    with pytest.raises(FileNotFoundError):
        expand_inputs(tmp_path / "missing", "lines")
    with pytest.raises(ValueError, match="named twice"):
        expand_inputs([tmp_path / "b.txt", tmp_path / "b.txt"], "lines")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no input files"):
        expand_inputs(tmp_path / "empty", "lines")
    with pytest.raises(ValueError, match="shard_size must be in 1..1,000,000"):
        plan_file(str(tmp_path / "b.txt"), "lines", 0)
    assert plan_file(str(tmp_path / "b.txt"), "lines", 5).shards == ()
    shard = Shard(0, (Part("x", 0, 0, 1),), 0, "")
    assert Shard.from_dict(shard.to_dict()) == shard
