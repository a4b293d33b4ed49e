"""HyperNode auto-discovery, as Volcano's HyperNode controller does it: which sources are
enabled (``config``, read from Volcano's controller ConfigMap) and the ``label`` source, which
builds HyperNodes from node labels (``label``)."""
