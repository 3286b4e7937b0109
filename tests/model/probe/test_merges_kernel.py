"""Merges read by the kernel's receive times (model.probe.merges): a late reader does not move a stamp, and two
steps it found waiting come as one chunk stamped at the second's arrival, two decode times after the step before:
left out, whatever the client's timer says; steps so left out do not make the run unreliable, unless most are."""
from __future__ import annotations

from model.probe.merges import LATE_ARRIVAL, STALLED, Group, flag_by_timing, unreliable

D = 0.02


def _groups(times_in_steps: list[float], sizes: list[int] | None = None) -> list[Group]:
    sizes = sizes or [3] * len(times_in_steps)
    return [Group(n, t * D) for n, t in zip(sizes, times_in_steps)]


def test_a_group_two_decode_times_after_the_one_before_is_left_out():
    groups = _groups([0, 1, 2, 4, 5, 6, 7], [3, 5, 2, 7, 1, 5, 4])  # the fourth is two steps read in one chunk
    flag_by_timing(groups, [], None, kernel=True)
    assert [g.suspect for g in groups] == ["", "", "", LATE_ARRIVAL, "", "", ""]


def test_a_stall_of_the_reader_moves_no_kernel_stamp_so_merges_nothing_by_itself():
    groups = _groups([0, 1, 2, 3, 4, 5])
    stalls = [[3 * D + 0.001, 1.5 * D]]  # the reader away from 1.5 to 3.05 decode times: it read step 3 late
    flag_by_timing(groups, stalls, None, kernel=True)
    assert not any(g.suspect for g in groups)
    flag_by_timing(groups, stalls, None, kernel=False)  # the same times read by the reader's clock: left out
    assert [g.suspect for g in groups] == ["", "", "", STALLED, "", ""]


def test_steps_left_out_by_kernel_time_do_not_make_the_run_unreliable_unless_most_are():
    some = _groups([0, 1, 2.6, 3.6, 5.2, 6.2, 7.2, 8.2])  # 2 of 8 late: a server that paused twice
    flag_by_timing(some, [], None, kernel=True)
    assert sum(g.suspect == LATE_ARRIVAL for g in some) == 2 and not unreliable([some])
    # short requests (too few gaps for their own decode time) read by the run's: most of their steps late
    most = [_groups([0, 2, 4, 6]) for _ in range(3)]
    for groups in most:
        flag_by_timing(groups, [], D, kernel=True)
    assert sum(g.suspect == LATE_ARRIVAL for gs in most for g in gs) == 9 and unreliable(most)


def test_the_first_step_is_timed_against_the_role_chunk_that_came_before_it():
    merged = _groups([2, 3, 4, 5, 6], [5, 3, 2, 4, 1])  # the role chunk at 0: the first group is steps 1 and 2
    flag_by_timing(merged, [], None, kernel=True, opening=0.0)
    assert [g.suspect for g in merged] == [LATE_ARRIVAL, "", "", "", ""]
    whole = _groups([1, 2, 3, 4, 5])
    flag_by_timing(whole, [], None, kernel=True, opening=0.0)
    assert not any(g.suspect for g in whole)


def test_a_first_step_read_with_the_opening_cannot_be_timed_and_is_left_out_fairly():
    from model.probe.merges import WITH_OPENING
    together = _groups([0, 1, 2, 3, 4])  # the role chunk and the first step (or two) in one read
    flag_by_timing(together, [], None, kernel=True, opening=0.0)
    assert [g.suspect for g in together] == [WITH_OPENING, "", "", "", ""] and not unreliable([together])
