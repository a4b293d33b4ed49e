"""Shared devices the deviceshare plugin schedules: NVIDIA GPUs shared by memory or whole cards
(``gpushare``) and virtual GPUs sliced by memory and cores (``vgpu``, HAMi-core).

Volcano's counterpart: ``pkg/scheduler/api/devices`` (the ``Devices`` objects Volcano keeps in
``NodeInfo.Others``). Here a node's devices are built by the plugin at session open from what the
device plugins register on the Node (annotations, capacity) and from the assignment annotations of
the pods already on it; ``requests.py`` holds what a pod asks, per container.
"""
