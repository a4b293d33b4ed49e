"""The workflow controllers the worker runs each cycle: JobFlow (with JobTemplate) and CronJob."""
