"""Kubeflow training jobs (PyTorchJob, TFJob, MPIJob) gang-scheduled by Volcano.

What the Kubeflow training operator does when its gang scheduler is Volcano, in
this project's terms:

- ``frameworks``: each kind's replica types, container, port, defaults.
- ``manifests``: the ``kubeflow.org/v1`` manifests ⇄ the models (defaults filled in).
- ``admission``: what the training operator's validation refuses, each with its field path,
  plus the Volcano side (the queue and the priority class must exist).
- ``wiring``: a replica rendered into a Pod with the framework's env (MASTER_ADDR, WORLD_SIZE,
  RANK; TF_CONFIG; the MPI hostfile).
- ``controller``: one pass per job: its PodGroup, its pods, restarts and backoffLimit,
  activeDeadlineSeconds, cleanPodPolicy, ttlSecondsAfterFinished, and the conditions
  Created → Running → Succeeded/Failed (Restarting on a retry).

Design choice: the controller creates the PodGroup and the Pods itself, as the training
operator does, rather than a hidden VolcanoJob. A hidden VolcanoJob would share the
VolcanoJobs' names (a PyTorchJob and a VolcanoJob of one name would collide), show up in
``kubectl get vcjob``, name its PodGroup ``<job>-<uid>`` and apply Volcano's lifecycle
policies, none of which a Kubeflow user sees. Pods belong to the job through their PodGroup
(named after the job, as the operator names it) and the operator's labels; the scheduler
reads PodGroups and Pods only, so these pods are scheduled, bound and run like any other.
"""

from __future__ import annotations
