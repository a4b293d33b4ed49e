"""Kubeflow training jobs served at ``/apis/kubeflow.org/v1/namespaces/{ns}/<plural>``.

PyTorchJob, TFJob and MPIJob as the training operator's CRDs declare them: namespaced,
with a ``status`` subresource (the controller's), found by ``metadata.name``, the
namespace and the queue; whoever may submit VolcanoJobs may submit these
(the ``trainingjobs`` access rule, registered in ``training.api.kinds``).
"""

from __future__ import annotations

from kube.resources import Resource
from kube.serializers import KubeObjectSerializer, list_serializer
from training.manifests import MPIJobKind, PyTorchJobKind, TFJobKind

__all__ = [
    "MPIJOBS",
    "PYTORCHJOBS",
    "TFJOBS",
    "TRAINING_RESOURCES",
    "TrainingJobListSerializer",
    "TrainingJobSerializer",
]

_SELECTORS = {
    "metadata.name": "name",
    "metadata.namespace": "namespace",
    "spec.runPolicy.schedulingPolicy.queue": "queue",
}

# The experiments' job: one Master and one Worker in the test queue, high priority.
PYTORCH_EXAMPLE = {
    "apiVersion": "kubeflow.org/v1",
    "kind": "PyTorchJob",
    "metadata": {"name": "pytorch-simple"},
    "spec": {
        "runPolicy": {"schedulingPolicy": {"queue": "default"}},
        "pytorchReplicaSpecs": {
            "Master": {
                "replicas": 1,
                "restartPolicy": "OnFailure",
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "pytorch",
                                "image": "docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727",
                                "command": ["sleep", "60"],
                                "resources": {"requests": {"cpu": "1"}},
                            }
                        ]
                    }
                },
            },
        },
    },
}


def _resource(
    kind: type[PyTorchJobKind] | type[TFJobKind] | type[MPIJobKind], plural: str
) -> Resource:
    return Resource(
        manifest=kind(),
        plural=plural,
        group="kubeflow.org",
        version="v1",
        access="trainingjobs",
        field_selectors=_SELECTORS,
        status_subresource=True,
        creator_field="creator",
        example=PYTORCH_EXAMPLE if kind is PyTorchJobKind else None,
    )


PYTORCHJOBS = _resource(PyTorchJobKind, "pytorchjobs")
TFJOBS = _resource(TFJobKind, "tfjobs")
MPIJOBS = _resource(MPIJobKind, "mpijobs")
TRAINING_RESOURCES = (PYTORCHJOBS, TFJOBS, MPIJOBS)


class TrainingJobSerializer(KubeObjectSerializer):
    """``kubeflow.org/v1`` PyTorchJob, TFJob or MPIJob: replica specs, runPolicy, status."""


TrainingJobListSerializer = list_serializer(TrainingJobSerializer, "TrainingJobListSerializer")
