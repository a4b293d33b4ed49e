"""Login (Django's views) and the profile page where a user issues and revokes API tokens."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from accounts.kubeconfig import kubeconfig_create
from accounts.models import ApiToken
from accounts.roles import allowed_namespaces, roles_of
from accounts.services import token_create, token_revoke
from accounts.tls import local_tls_server

__all__ = ["kubeconfig_download", "profile", "token_revoke_view"]


class TokenForm(forms.Form):
    """Name a new token."""

    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=100,
        help_text=gettext_lazy("What the token is for, e.g. ci or laptop"),
    )


# The new token's secret waits in the server-side session between the POST and the redirected
# GET, which pops it: shown once, and a reload of the page cannot issue a second token.
NEW_TOKEN_KEY = "accounts.new_token"


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    """Show the user's roles, namespaces and tokens; a POST issues a token, shown once.

    Post/Redirect/Get: a valid POST stores the secret in the session and redirects, so
    reloading the page that shows it re-sends nothing.
    """
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        _, secret = token_create(user=request.user, name=form.cleaned_data["name"])
        request.session[NEW_TOKEN_KEY] = secret
        return redirect("accounts:profile")
    namespaces = allowed_namespaces(request.user)
    context = {
        "form": form,
        "new_token": request.session.pop(NEW_TOKEN_KEY, ""),
        "tokens": ApiToken.objects.filter(user_id=int(request.user.pk or 0)),
        "roles": sorted(roles_of(request.user)),
        "namespaces": "all" if namespaces is None else ", ".join(sorted(namespaces)) or "none",
    }
    return render(request, "accounts/profile.html", context)


@login_required
@require_POST
def token_revoke_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Revoke one of the user's own tokens."""
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    token_revoke(token=token)
    messages.success(request, _("Token %(name)s revoked.") % {"name": token.name})
    return redirect("accounts:profile")


@login_required
@require_POST
def kubeconfig_download(request: HttpRequest) -> HttpResponse:
    """Issue a token named ``kubeconfig`` and download a kubeconfig naming this server."""
    server, ca_pem = request.build_absolute_uri("/"), b""
    tls_url, tls_cert = local_tls_server()
    if tls_url and (not request.is_secure() or server.startswith(tls_url)):
        # kubectl sends no token over plain HTTP: name our TLS listener and trust its certificate.
        server, ca_pem = tls_url, tls_cert
    text = kubeconfig_create(user=request.user, server=server, ca_pem=ca_pem)
    response = HttpResponse(text, content_type="application/yaml")
    filename = f"kubeconfig-{request.user.get_username()}.yaml"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
