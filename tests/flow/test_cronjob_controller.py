"""The CronJob controller: a job at each schedule time, once; the concurrency policies; missed
times after downtime; the history limits; suspend; the time zone; the simulated calendar."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from core.models import Event
from flow.controller.cronjob import next_run, reconcile_cron_jobs
from flow.models import CronJob
from flow.services import cron_job_run_now, cron_job_suspend
from jobs.models import Job
from tests.flow.kit import NOW, cron_job, jobs, set_phase

pytestmark = pytest.mark.django_db


def _at(minutes: float) -> dt.datetime:
    return NOW + dt.timedelta(minutes=minutes)


def _cron(schedule: str = "*/5 * * * *", **spec: Any) -> CronJob:
    cron = cron_job("tick", schedule, **spec)
    CronJob.objects.filter(pk=cron.pk).update(created_at=NOW)  # created at 12:00 on the dot
    return CronJob.objects.get(pk=cron.pk)


def _name(minutes: int) -> str:
    return f"tick-{int(_at(minutes).timestamp()) // 60}"


def _reasons() -> list[str]:
    return list(
        Event.objects.filter(involved_name="tick").order_by("pk").values_list("reason", flat=True)
    )


def test_a_job_at_each_schedule_time_and_never_twice_for_one() -> None:
    _cron()
    reconcile_cron_jobs(_at(4))
    assert jobs() == []
    reconcile_cron_jobs(_at(5))
    reconcile_cron_jobs(_at(6))  # the same time again: nothing new
    assert jobs() == [_name(5)]
    job = Job.objects.get()
    assert job.annotations["volcano.sh/cronjob-scheduled-timestamp"] == "2026-01-01T12:05:00Z"
    assert (job.owner_references[0]["kind"], job.owner_references[0]["controller"]) == (
        "CronJob",
        True,
    )
    cron = CronJob.objects.get()
    assert cron.last_schedule_time == _at(5)
    assert [ref["name"] for ref in cron.active] == [_name(5)]
    assert "SuccessfulCreate" in _reasons()


def test_a_second_pass_writes_nothing() -> None:
    _cron()
    reconcile_cron_jobs(_at(5))
    version = CronJob.objects.get().resource_version
    assert reconcile_cron_jobs(_at(6)) == 0
    assert CronJob.objects.get().resource_version == version


def test_allow_runs_two_at_once() -> None:
    _cron(concurrencyPolicy="Allow")
    reconcile_cron_jobs(_at(5))
    reconcile_cron_jobs(_at(10))
    assert jobs() == sorted([_name(5), _name(10)])
    assert len(CronJob.objects.get().active) == 2


def test_forbid_skips_while_one_is_active() -> None:
    _cron(concurrencyPolicy="Forbid")
    reconcile_cron_jobs(_at(5))
    set_phase(_name(5), "Running")
    reconcile_cron_jobs(_at(10))
    reconcile_cron_jobs(_at(11))
    assert jobs() == [_name(5)]
    assert _reasons().count("ForbidConcurrent") == 1
    set_phase(_name(5), "Completed", at=_at(12))
    reconcile_cron_jobs(_at(15))
    assert jobs() == sorted([_name(5), _name(15)])
    assert CronJob.objects.get().last_successful_time == _at(12)
    assert "SawCompletedJob" in _reasons()


def test_replace_deletes_the_active_job_first() -> None:
    _cron(concurrencyPolicy="Replace")
    reconcile_cron_jobs(_at(5))
    set_phase(_name(5), "Running")
    reconcile_cron_jobs(_at(10))
    assert jobs() == [_name(10)]
    assert [ref["name"] for ref in CronJob.objects.get().active] == [_name(10)]
    assert {"ReplaceConcurrent", "SuccessfulDelete"} <= set(_reasons())


def test_after_downtime_only_the_most_recent_missed_time_runs() -> None:
    _cron()
    reconcile_cron_jobs(_at(5))
    set_phase(_name(5), "Completed")
    reconcile_cron_jobs(_at(27))  # down from 12:06 to 12:27: 10, 15, 20 and 25 were missed
    assert jobs() == sorted([_name(5), _name(25)])


def test_a_time_past_the_starting_deadline_is_missed_not_run() -> None:
    _cron(startingDeadlineSeconds=60)
    reconcile_cron_jobs(_at(7))  # 12:05 is two minutes old: past its deadline
    assert jobs() == []
    assert "MissSchedule" in _reasons()
    reconcile_cron_jobs(_at(10.5))
    assert jobs() == [_name(10)]


def test_more_than_a_hundred_missed_times_are_reported() -> None:
    _cron("* * * * *")
    reconcile_cron_jobs(_at(150))
    assert jobs() == [_name(150)]
    assert "TooManyMissedTimes" in _reasons()


def test_history_limits_delete_the_oldest_finished_jobs() -> None:
    _cron(successfulJobsHistoryLimit=2, failedJobsHistoryLimit=1)
    for minute in (5, 10, 15):
        reconcile_cron_jobs(_at(minute))
        set_phase(_name(minute), "Completed", at=_at(minute + 1))
    for minute in (20, 25):
        reconcile_cron_jobs(_at(minute))
        set_phase(_name(minute), "Failed", at=_at(minute + 1))
    reconcile_cron_jobs(_at(26))
    assert jobs() == sorted([_name(10), _name(15), _name(25)])
    assert CronJob.objects.get().active == []


def test_a_suspended_cron_job_makes_nothing_and_resumes_within_its_deadline() -> None:
    cron = _cron(startingDeadlineSeconds=120)
    cron_job_suspend(cron=cron, suspend=True)
    reconcile_cron_jobs(_at(5))
    assert jobs() == []
    assert next_run(CronJob.objects.get(), _at(5)) is None
    cron_job_suspend(cron=CronJob.objects.get(), suspend=False)
    reconcile_cron_jobs(_at(6))
    assert jobs() == [_name(5)]


def test_the_schedule_is_read_in_the_time_zone() -> None:
    _cron("0 13 * * *", timeZone="Europe/Paris")  # 13:00 in Paris is 12:00 UTC in January
    reconcile_cron_jobs(_at(0.5))
    assert CronJob.objects.get().last_schedule_time is None  # 12:00 is its creation, not after
    assert next_run(CronJob.objects.get(), _at(1)) == dt.datetime(2026, 1, 2, 12, 0, tzinfo=dt.UTC)
    reconcile_cron_jobs(dt.datetime(2026, 1, 2, 12, 0, 30, tzinfo=dt.UTC))
    job = Job.objects.get()
    assert job.annotations["volcano.sh/cronjob-scheduled-timestamp"] == "2026-01-02T13:00:00+01:00"


def test_at_ten_times_speed_a_five_minute_schedule_fires_every_thirty_seconds(
    settings: Any,
) -> None:
    settings.VOLCANO_SIM_SPEED = 10
    _cron()
    reconcile_cron_jobs(NOW + dt.timedelta(seconds=29))
    assert jobs() == []
    reconcile_cron_jobs(NOW + dt.timedelta(seconds=30))
    reconcile_cron_jobs(NOW + dt.timedelta(seconds=61))
    assert len(jobs()) == 2
    assert CronJob.objects.get().last_schedule_time == NOW + dt.timedelta(seconds=60)
    assert next_run(CronJob.objects.get(), NOW + dt.timedelta(seconds=61)) == NOW + dt.timedelta(
        seconds=90
    )


def test_at_ten_times_speed_a_creation_time_with_a_fraction_misses_nothing(settings: Any) -> None:
    settings.VOLCANO_SIM_SPEED = 10
    cron = cron_job("tick", "*/5 * * * *", startingDeadlineSeconds=60)
    created = NOW + dt.timedelta(microseconds=745_678)  # as a real creation time is
    CronJob.objects.filter(pk=cron.pk).update(created_at=created)
    for second in range(25, 100):  # a pass a second, as the worker runs them
        reconcile_cron_jobs(created + dt.timedelta(seconds=second))
    assert len(jobs()) == 3  # at 30, 60 and 90 wall seconds
    assert "MissSchedule" not in _reasons()


def test_run_now_makes_an_active_job_of_the_template_outside_the_schedule() -> None:
    cron = _cron()
    job = cron_job_run_now(cron=cron)
    assert job.name.startswith("tick-manual-")
    assert job.annotations["cronjob.kubernetes.io/instantiate"] == "manual"
    assert [ref["name"] for ref in CronJob.objects.get().active] == [job.name]
    set_phase(job.name, "Completed", at=_at(1))
    reconcile_cron_jobs(_at(2))
    assert CronJob.objects.get().active == []
    assert CronJob.objects.get().last_successful_time == _at(1)


def test_an_active_job_deleted_by_hand_leaves_the_active_list() -> None:
    _cron()
    reconcile_cron_jobs(_at(5))
    Job.objects.all().delete()
    reconcile_cron_jobs(_at(6))
    assert CronJob.objects.get().active == []
    assert "StaleReference" in _reasons()
