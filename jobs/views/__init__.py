"""The job console's pages: the jobs list, a job's page, and Submit."""
