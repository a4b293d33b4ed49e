"""The leader elector: the lease stays with whoever renews it, and leadership ends at the
renew deadline when renewals fail (client-go's rules, on a fake lease and clock)."""

from __future__ import annotations

from scheduler.leader import LeaderElector


class FakeLease:
    """A lease that one holder at a time may take; ``down`` makes every call fail."""

    def __init__(self, holder: str, store: dict[str, str]) -> None:
        self.holder, self.ttl, self.store, self.down = holder, 15.0, store, False

    def acquire(self) -> bool:
        if self.down:
            raise ConnectionError("store unreachable")
        if self.store.get("holder", "") in ("", self.holder):
            self.store["holder"] = self.holder
            return True
        return False

    def release(self) -> None:
        if self.store.get("holder") == self.holder:
            self.store["holder"] = ""

    def current_holder(self) -> str:
        return self.store.get("holder", "")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_first_to_try_leads_and_the_other_stands_by() -> None:
    store: dict[str, str] = {}
    clock = Clock()
    a = LeaderElector(FakeLease("a", store), clock=clock)
    b = LeaderElector(FakeLease("b", store), clock=clock)

    a.try_acquire_or_renew()
    b.try_acquire_or_renew()

    assert (a.acquire(), b.acquire()) == (True, False)
    assert (a.renew_deadline, a.retry_period) == (10.0, 5.0)  # Volcano's, for a 15 s lease
    for _ in range(20):  # both keep trying every retry period: the lease never moves
        clock.now += 5.0
        a.try_acquire_or_renew()
        b.try_acquire_or_renew()
        assert (a.acquire(), b.acquire()) == (True, False)


def test_a_holder_that_cannot_renew_stops_leading_at_the_renew_deadline() -> None:
    store: dict[str, str] = {}
    clock = Clock()
    lease = FakeLease("a", store)
    a = LeaderElector(lease, clock=clock)
    a.try_acquire_or_renew()
    lease.down = True

    clock.now += 9.0
    a.try_acquire_or_renew()
    assert a.acquire(), "still within the renew deadline"
    clock.now += 1.5
    a.try_acquire_or_renew()
    assert not a.acquire(), "past the renew deadline a holder must stop before its lease expires"


def test_release_gives_the_lease_to_the_next_to_try() -> None:
    store: dict[str, str] = {}
    clock = Clock()
    a = LeaderElector(FakeLease("a", store), clock=clock)
    b = LeaderElector(FakeLease("b", store), clock=clock)
    a.try_acquire_or_renew()

    a.release()
    b.try_acquire_or_renew()

    assert (a.acquire(), b.acquire()) == (False, True)
    assert b.current_holder() == "b"
