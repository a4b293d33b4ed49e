"""Workflows: Volcano's ``flow.volcano.sh`` JobTemplate and JobFlow, and the batch CronJob.

A JobTemplate is a Volcano Job spec that creates nothing by itself; a JobFlow makes a Volcano
Job from a template for each of its steps once the steps it depends on reached the phase they
must (and its probes pass); a CronJob makes a Volcano Job from its template on a schedule, on
the cluster's clock (``kube.clock``). The app sits above ``jobs``: what it makes are jobs.
"""
