"""HyperNode as the API server serves it: resource, schema, columns, paths."""
