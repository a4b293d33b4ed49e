"""Manifests the job tests share: a Job with two mistakes on two lines (the editor's test)."""

from __future__ import annotations

__all__ = ["THREE_SCHEMA_ERRORS", "TWO_ERRORS"]

# minAvailable 5 above 1 replica (line 5) and a queue that does not exist (line 7).
TWO_ERRORS = """apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: two-errors, namespace: default}
spec:
  minAvailable: 5
  schedulerName: volcano
  queue: nowhere
  tasks:
    - replicas: 1
      name: main
      template:
        spec:
          containers:
            - {name: main, image: busybox}
"""

# Three mistakes the Job's schema refuses one at a time: a string where an integer goes
# (line 5), an unknown field (line 6) and a negative maxRetry (line 7).
THREE_SCHEMA_ERRORS = """apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: three-errors, namespace: default}
spec:
  minAvailable: two
  colour: blue
  maxRetry: -1
  tasks:
    - replicas: 1
      name: main
      template:
        spec:
          containers:
            - {name: main, image: busybox}
"""
