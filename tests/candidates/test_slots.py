"""Gathering one window's options: the anchors every slot can serve."""

from __future__ import annotations

from placement.candidates.model import Slot, SlotSpec
from placement.candidates.slots import common_anchors


def test_anchors_are_those_every_slot_can_serve():
    slots = [
        Slot(SlotSpec("1", True, ()), {1: [1], 5: [6], 9: [9]}),
        Slot(SlotSpec("2", True, ()), {9: [9], 5: [5]}),
    ]
    assert common_anchors(slots) == (5, 9)
