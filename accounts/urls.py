"""Login, logout and profile pages under /accounts/."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, path

from accounts import language, views

app_name = "accounts"

urlpatterns: list[URLPattern] = [
    path(
        "login/",
        auth_views.LoginView.as_view(template_name="accounts/login.html"),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("profile/", views.profile, name="profile"),
    path("language/", language.set_language, name="language"),
    path("tokens/<int:pk>/revoke/", views.token_revoke_view, name="token_revoke"),
    path("kubeconfig/", views.kubeconfig_download, name="kubeconfig"),
]
