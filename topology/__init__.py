"""Network topology: Volcano's HyperNode (``topology.volcano.sh/v1alpha1``) and its controller.

A HyperNode groups nodes (or other HyperNodes) that share a network tier; the scheduler's
network-topology-aware allocation reads the tree they form. This app serves the kind, admits
it by Volcano's CRD, ValidatingAdmissionPolicy and webhook rules, keeps ``status.nodeCount``
current and, like Volcano's HyperNode controller, discovers HyperNodes from node labels.
"""
