"""API tokens: a token is as good as a password, so it dies with the credentials behind it.

A changed password or a deactivated account deletes the user's token (a model-level rule on
every save of a user, wherever it happens: the admin, `changepassword`, a script); an
organiser revokes the token of an annotator of their campaign (console and API).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models.signals import pre_save
from django.dispatch import receiver
from rest_framework.authtoken.models import Token

CREDENTIAL_FIELDS = frozenset({"password", "is_active"})


def revoke(user) -> bool:
    """Delete the user's token; True if there was one."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted > 0


def replace(user) -> Token:
    """A fresh token for the user; the old one stops working."""
    revoke(user)
    return Token.objects.create(user=user)


@receiver(pre_save, sender=get_user_model(), dispatch_uid="annotator.tokens.credentials_changed")
def _revoke_when_credentials_change(sender, instance, update_fields=None, **kwargs) -> None:
    # Logins save last_login with update_fields: no query for them.
    if instance.pk is None or (update_fields is not None and not CREDENTIAL_FIELDS & set(update_fields)):
        return
    before = sender._default_manager.filter(pk=instance.pk).values("password", "is_active").first()
    if before is None:
        return
    if before["password"] != instance.password or (before["is_active"] and not instance.is_active):
        revoke(instance)
