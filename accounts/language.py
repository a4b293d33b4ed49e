"""The console's language, chosen per user and remembered with the account.

Django's ``set_language`` view validates the choice, keeps it in the language cookie and
redirects back; :func:`set_language` wraps it to also save the choice on the user's
:class:`~accounts.models.Preference`. At sign-in the saved choice goes into the session
(``user_logged_in``), and :func:`user_language` makes it the request's language (and the
cookie's) on every page, so a user signing in on another browser finds their language back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from accounts.models import Preference

__all__ = ["SESSION_KEY", "connect", "set_language", "user_language"]

SESSION_KEY = "accounts.language"


def _supported(code: str) -> bool:
    return code in {language for language, _ in settings.LANGUAGES}


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Switch the console's language (Django's view), and remember it for a signed-in user."""
    response = django_set_language(request)
    code = request.POST.get("language", "")
    if _supported(code):
        request.session[SESSION_KEY] = code
        if request.user.is_authenticated:
            Preference.objects.update_or_create(user=request.user, defaults={"language": code})
    return response


def on_login(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """Bring the user's saved language into the new session (it survives the session's cycle)."""
    if request is None or not hasattr(request, "session"):
        return
    language = Preference.objects.filter(user=user).values_list("language", flat=True).first()
    if language and _supported(language):
        request.session[SESSION_KEY] = language


def connect() -> None:
    """Connect the sign-in receiver (from the app's ready())."""
    user_logged_in.connect(on_login, dispatch_uid="accounts.language.on_login")


def user_language(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[..., HttpResponse]:
    """Middleware (after LocaleMiddleware and sessions): the signed-in user's language wins.

    LocaleMiddleware chose from the cookie or Accept-Language; a language saved in the
    session (from the user's preference, at sign-in) overrides it, and the response sets the
    cookie to it, so the pages and the cookie agree from the first page after signing in.
    """

    def middleware(request: HttpRequest) -> HttpResponse:
        session = getattr(request, "session", None)
        language = session.get(SESSION_KEY) if session is not None else None
        if language and _supported(language) and language != translation.get_language():
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        response = get_response(request)
        if language and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != language:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                language,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                path=settings.LANGUAGE_COOKIE_PATH,
                domain=settings.LANGUAGE_COOKIE_DOMAIN,
                secure=settings.LANGUAGE_COOKIE_SECURE,
                httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            )
        return response

    return middleware
