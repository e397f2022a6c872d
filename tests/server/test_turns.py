"""Costly reads taken in turns by key: one client's many requests wait behind each other, not in
front of everybody else's."""

from __future__ import annotations

import asyncio

import pytest

from masques.server.turns import TakingTurns


async def _run(turns: TakingTurns, key: str, order: list[str], release: asyncio.Event | None = None) -> None:
    async with turns.turn(key):
        order.append(key)
        if release is not None:
            await release.wait()
        await asyncio.sleep(0)


def test_a_key_that_asks_many_times_does_not_go_before_a_newcomer() -> None:
    async def scenario() -> list[str]:
        turns, order, release = TakingTurns(), [], asyncio.Event()
        first = asyncio.create_task(_run(turns, "greedy", order, release))
        await asyncio.sleep(0)
        tasks = [asyncio.create_task(_run(turns, "greedy", order)) for _ in range(5)]
        await asyncio.sleep(0)
        tasks.append(asyncio.create_task(_run(turns, "other", order)))
        tasks.append(asyncio.create_task(_run(turns, "third", order)))
        await asyncio.sleep(0)
        assert turns.waiting == 7
        release.set()
        await asyncio.gather(first, *tasks)
        return order

    order = asyncio.run(scenario())
    # the greedy key's waiting requests alternate with the others'
    assert order == ["greedy", "greedy", "other", "third", "greedy", "greedy", "greedy", "greedy"]


def test_one_turn_at_a_time() -> None:
    async def scenario() -> int:
        turns, inside, most = TakingTurns(), 0, 0

        async def job(key: str) -> None:
            nonlocal inside, most
            async with turns.turn(key):
                inside += 1
                most = max(most, inside)
                await asyncio.sleep(0.001)
                inside -= 1

        await asyncio.gather(*(job(f"k{i % 3}") for i in range(12)))
        return most

    assert asyncio.run(scenario()) == 1


def test_a_caller_cancelled_while_waiting_leaves_and_the_turns_go_on() -> None:
    async def scenario() -> tuple[list[str], int]:
        turns, order, release = TakingTurns(), [], asyncio.Event()
        holder = asyncio.create_task(_run(turns, "a", order, release))
        await asyncio.sleep(0)
        gone = asyncio.create_task(_run(turns, "b", order))
        after = asyncio.create_task(_run(turns, "c", order))
        await asyncio.sleep(0)
        gone.cancel()
        await asyncio.sleep(0)
        release.set()
        await asyncio.gather(holder, after)
        assert gone.cancelled()
        return order, turns.waiting

    order, waiting = asyncio.run(scenario())
    assert order == ["a", "c"] and waiting == 0


def test_a_caller_cancelled_as_its_turn_comes_hands_the_turn_on() -> None:
    async def scenario() -> tuple[list[str], bool]:
        turns, order = TakingTurns(), []
        async with turns.turn("a"):
            order.append("a")
            unlucky = asyncio.create_task(_run(turns, "b", order))
            after = asyncio.create_task(_run(turns, "c", order))
            await asyncio.sleep(0)  # both wait
        unlucky.cancel()  # the turn was just handed to "b", which has not run yet
        async with asyncio.timeout(1):  # a turn lost with "b" would leave "c" waiting for ever
            await after
        await asyncio.gather(unlucky, return_exceptions=True)
        return order, unlucky.cancelled()

    order, cancelled = asyncio.run(scenario())
    assert order == ["a", "c"] and cancelled


def test_the_turn_is_freed_when_nobody_waits() -> None:
    async def scenario() -> None:
        turns = TakingTurns()
        async with turns.turn("a"):
            pass
        async with asyncio.timeout(1):
            async with turns.turn("b"):
                pass

    asyncio.run(scenario())


def test_at_once_must_be_positive() -> None:
    with pytest.raises(ValueError):
        TakingTurns(0)
