"""perf.platform.cpus: hexadecimal CPU masks of /proc/irq."""

from __future__ import annotations

import pytest

from perf.platform.cpus import format_cpu_mask, parse_cpu_mask


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", []),
        ("1", [0]),
        ("f\n", [0, 1, 2, 3]),
        ("5", [0, 2]),
        ("ff", [0, 1, 2, 3, 4, 5, 6, 7]),
        ("A0", [5, 7]),
        ("00000000,0000000f", [0, 1, 2, 3]),
        ("00000001,00000001", [0, 32]),
        ("ffffffff,ffffffff", list(range(64))),
    ],
)
def test_parse_cpu_mask(text, expected):
    assert parse_cpu_mask(text) == expected


@pytest.mark.parametrize("text", ["", "  ", "0x3", "g", "3,", ",3", "00000000,,00000001", "1 2"])
def test_parse_cpu_mask_rejects_malformed_masks(text):
    with pytest.raises(ValueError, match="invalid CPU mask"):
        parse_cpu_mask(text)


@pytest.mark.parametrize(
    ("cpus", "like", "expected"),
    [
        ([0, 2], "", "5"),
        ([0, 2], "f", "5"),
        ([0, 1, 2, 3], "f\n", "f"),
        ([0, 1, 2, 3], "ff", "0f"),
        ([4, 5, 6, 7], "ff", "f0"),
        ([], "ff", "00"),
        ([0, 2], "00000000,0000000f", "00000000,00000005"),
        ([0, 32], "00000000,00000000", "00000001,00000001"),
        # more CPUs than the groups of *like*: more groups
        ([33], "0000000f", "200000000"),
        ([64], "00000000,00000001", "00000001,00000000,00000000"),
    ],
)
def test_format_cpu_mask_follows_the_style_read(cpus, like, expected):
    assert format_cpu_mask(cpus, like=like) == expected


@pytest.mark.parametrize("like", ["f", "00", "00000000,0000000f", "00000000,00000000,00000000"])
def test_masks_round_trip(like):
    cpus = [1, 3]
    assert parse_cpu_mask(format_cpu_mask(cpus, like=like)) == cpus
