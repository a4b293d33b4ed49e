"""API tokens, namespace grants and the audit log."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from kube import registry
from kube.validators import validate_dns1123_label

__all__ = ["ApiToken", "AuditEntry", "NamespaceGrant", "Preference"]


class ApiToken(models.Model):
    """A bearer token for scripts and kubectl; only its SHA-256 is stored, never the token."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, help_text="What the token is for (e.g. ci, laptop)")
    digest = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(max_length=12, editable=False, help_text="Shown to tell tokens apart")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        """Return whether the token still authenticates."""
        return self.revoked_at is None


class NamespaceGrant(models.Model):
    """Lets a user, or every member of a group, use their role in one namespace."""

    namespace = models.CharField(max_length=63, validators=[validate_dns1123_label])
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="namespace_grants",
    )
    group = models.ForeignKey(
        Group, null=True, blank=True, on_delete=models.CASCADE, related_name="namespace_grants"
    )

    class Meta:
        ordering = ["namespace"]
        constraints = [
            models.CheckConstraint(
                condition=Q(user__isnull=False, group__isnull=True)
                | Q(user__isnull=True, group__isnull=False),
                name="grant_user_xor_group",
            ),
            models.UniqueConstraint(fields=["namespace", "user"], name="grant_unique_user"),
            models.UniqueConstraint(fields=["namespace", "group"], name="grant_unique_group"),
        ]

    def __str__(self) -> str:
        holder = self.user or self.group
        return f"{holder} → {self.namespace}"

    def clean(self) -> None:
        """A grant refers to a namespace that exists (create the namespace first)."""
        super().clean()
        # The namespaces the API serves (core's), found through the kernel by resource name.
        namespaces = registry.namespace_model()
        if namespaces is None or not self.namespace:
            return
        if not namespaces._default_manager.filter(name=self.namespace).exists():
            raise ValidationError(
                {"namespace": f'namespace "{self.namespace}" does not exist: create it first'}
            )


class AuditEntry(models.Model):
    """One change by a person to what operators own: who, when, which object, before, after."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=150, help_text="Kept when the user is deleted")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    action = models.CharField(max_length=32, help_text="create, update, delete, activate")
    kind = models.CharField(max_length=63, help_text="Queue, Node, SchedulerConfiguration")
    name = models.CharField(max_length=253)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.actor_name} {self.action} {self.kind}/{self.name}"


class Preference(models.Model):
    """What a user chose for the console, kept with the account so every browser gets it back.

    The language lives here rather than only in the browser's cookie: signing in on another
    machine (or after clearing cookies) brings the user's language back (accounts.language).
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference"
    )
    language = models.CharField(
        max_length=10,
        blank=True,
        choices=settings.LANGUAGES,
        help_text="The console's language; blank: the browser's",
    )

    def __str__(self) -> str:
        return f"{self.user}: {self.language or '-'}"
