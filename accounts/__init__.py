"""Who may do what: API tokens, namespace grants, the audit log, login and profile pages."""
