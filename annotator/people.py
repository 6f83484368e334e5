"""A campaign's people, as its organisers manage them in the console (no shell, no admin):

- **add** by name, one a line (`name`, `name,e-mail` or `name,Full Name,e-mail`), as
  annotators or organisers: an account that exists is added as it is (never changed); a new
  name gets a new account without a usable password, belonging to the campaign, and a one-time
  link to set its password (Django's password-reset token: it dies once the password is set, or
  after PASSWORD_RESET_TIMEOUT), shown once to the organiser, and e-mailed where a mail server
  is configured. All or nothing: one bad line and nobody is added.
- **a new link** for someone invited here who has not set a password yet (a lost link);
- **remove** someone from the campaign: their membership (or organising), and the assignments
  they have not started; what they judged stays, with its assignment.

Never staff, superusers, the app's own accounts (annotator.rules.accounts) or automatic judges:
those are an administrator's. Who may do what is annotator.access's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef

from annotator.models import AnnotatorProfile, Assignment, Campaign, CampaignMember, Nugget, TurnLabel
from annotator.rules.accounts import is_reserved

__all__ = ["ANNOTATOR", "ORGANISER", "ROLES", "Invitation", "PeopleAdded", "add_people", "new_link", "pending",
           "Removal", "removal_of", "remove_person", "PeopleRefused", "MAX_LINES"]

ANNOTATOR, ORGANISER = "annotator", "organiser"
ROLES = (ANNOTATOR, ORGANISER)
MAX_LINES = 500

LinkFor = Callable[[object], str]  # an account -> the absolute URL where its person sets a password


class PeopleRefused(ValueError):
    """Nobody was added: `problems` say why, a line each."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class Invitation:
    user_id: int
    username: str
    email: str
    link: str
    emailed: bool = False


@dataclass
class PeopleAdded:
    role: str
    added: list[str] = field(default_factory=list)  # accounts that existed
    invited: list[Invitation] = field(default_factory=list)  # accounts made now
    already: list[str] = field(default_factory=list)  # in the campaign in that role already

    def summary(self) -> str:
        parts = []
        if self.invited:
            parts.append(f"{len(self.invited)} new account{'s' if len(self.invited) != 1 else ''} made "
                         f"({', '.join(i.username for i in self.invited)})")
        if self.added:
            parts.append(f"{len(self.added)} existing account{'s' if len(self.added) != 1 else ''} added "
                         f"({', '.join(self.added)})")
        if self.already:
            parts.append(f"already {self.role}s: {', '.join(self.already)}")
        return (f"As {self.role}s: " + "; ".join(parts) + ".") if parts else "Nobody to add."


@dataclass(frozen=True)
class _Line:
    number: int
    username: str
    full_name: str
    email: str


def _parse(text: str) -> tuple[list[_Line], list[str]]:
    lines, problems, seen = [], [], {}
    validate_name = UnicodeUsernameValidator()
    raw = [line for line in text.splitlines()]
    if sum(1 for line in raw if line.strip()) > MAX_LINES:
        return [], [f"at most {MAX_LINES} people at once"]
    for number, line in enumerate(raw, 1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) > 3:
            problems.append(f"line {number}: name, or name,e-mail, or name,Full Name,e-mail: found {len(fields)} fields")
            continue
        username, full_name, email = fields[0], (fields[1] if len(fields) == 3 else ""), fields[-1] if len(fields) > 1 else ""
        try:
            validate_name(username)
            if not username or len(username) > 150:
                raise ValidationError("length")
        except ValidationError:
            problems.append(f"line {number}: {username!r} is not a user name (letters, digits and @ . + - _, at most 150)")
            continue
        if email:
            try:
                validate_email(email)
            except ValidationError:
                problems.append(f"line {number}: {email!r} is not an e-mail address")
                continue
        if username in seen:
            problems.append(f"line {number}: {username} is also on line {seen[username]}")
            continue
        seen[username] = number
        lines.append(_Line(number, username, full_name[:150], email))
    return lines, problems


def _refusal(line: _Line, user) -> str | None:
    """Why this existing account is never added by an organiser, or None."""
    if user.is_staff or user.is_superuser:
        return f"line {line.number}: {user.get_username()} is an administrator's account (staff): never added here"
    if not user.is_active:
        return f"line {line.number}: {user.get_username()} is deactivated: an administrator reactivates it"
    profile = getattr(user, "annotator_profile", None)
    if profile is not None and (profile.is_automatic or profile.is_adjudicated_gold):
        return f"line {line.number}: {user.get_username()} is an automatic judge, not a person"
    return None


def add_people(campaign: Campaign, text: str, role: str, *, by, link_for: LinkFor) -> PeopleAdded:
    """Add the people of `text` to the campaign in `role`, all or nothing (PeopleRefused)."""
    if role not in ROLES:
        raise PeopleRefused([f"a role is {' or '.join(ROLES)}"])
    lines, problems = _parse(text)
    User = get_user_model()
    existing = {u.get_username(): u for u in User.objects.filter(username__in=[x.username for x in lines])
                .select_related("annotator_profile")}
    for line in lines:
        user = existing.get(line.username)
        if user is not None:
            problems.append(_refusal(line, user))
        elif is_reserved(line.username):
            problems.append(f"line {line.number}: {line.username} is one of the app's own names: choose another")
    problems = [p for p in problems if p]
    if not lines and not problems:
        problems.append("give at least one name")
    if problems:
        raise PeopleRefused(problems)
    result = PeopleAdded(role)
    made: list[tuple[object, str]] = []
    try:
        with transaction.atomic():
            for line in lines:
                user = existing.get(line.username)
                if user is None:
                    user = _make_account(campaign, line)
                    made.append((user, line.email))
                if not _join(campaign, user, role, by):
                    result.already.append(user.get_username())
                elif line.username in existing:
                    result.added.append(user.get_username())
    except IntegrityError:  # a name taken by someone else meanwhile
        raise PeopleRefused(["one of these names was taken meanwhile: nobody was added; try again"]) from None
    result.invited = [_invitation(user, email, link_for) for user, email in made]
    return result


def _make_account(campaign: Campaign, line: _Line):
    """A new person's account: no usable password, belonging to the campaign that made it."""
    first, _, last = line.full_name.partition(" ")
    user = get_user_model()(username=line.username, email=line.email, first_name=first[:150], last_name=last[:150])
    user.set_unusable_password()
    user.save()
    AnnotatorProfile.objects.create(user=user, campaign=campaign)
    return user


def _join(campaign: Campaign, user, role: str, by) -> bool:
    """`user` joins the campaign in `role`; False when they were there in that role already."""
    if role == ORGANISER:
        if campaign.organisers.filter(pk=user.pk).exists():
            return False
        campaign.organisers.add(user)
        return True
    _, created = CampaignMember.objects.get_or_create(campaign=campaign, user=user, defaults={"added_by": by})
    return created


def _invitation(user, email: str, link_for: LinkFor) -> Invitation:
    link = link_for(user)
    emailed = False
    if email and getattr(settings, "GFRC_EMAIL_LINKS", False):
        send_mail(
            "Your account for annotating",
            f"An account named {user.get_username()} was made for you.\n\nSet its password here (the link works once):\n"
            f"{link}\n\nThen log in with that name and password.",
            None, [email],
        )
        emailed = True
    return Invitation(user.pk, user.get_username(), email, link, emailed)


def pending(campaign: Campaign):
    """People invited here who have not set a password yet (a new link may be given them)."""
    return (get_user_model().objects.filter(annotator_profile__campaign=campaign, annotator_profile__is_automatic=False,
                                            last_login__isnull=True, is_active=True, is_staff=False, is_superuser=False)
            .filter(password__startswith="!").order_by("username"))


def new_link(campaign: Campaign, user, link_for: LinkFor) -> Invitation:
    """A new link for someone invited here who has not set a password (PeopleRefused otherwise)."""
    if not pending(campaign).filter(pk=user.pk).exists():
        raise PeopleRefused([f"{user.get_username()} has set a password already, or was not invited here"])
    return _invitation(user, user.email, link_for)


@dataclass(frozen=True)
class Removal:
    """What removing someone from a campaign does: the assignments they have not started go;
    those they judged stay (their work counts), and so does their account."""

    member: bool
    organiser: bool
    open_assignments: int
    judged_assignments: int


def _judged(campaign: Campaign, person):
    """The person's assignments in the campaign, each with whether they judged anything there."""
    judged = (Exists(Nugget.objects.filter(turn__conversation_id=OuterRef("conversation_id"), annotator_id=person.pk))
              | Exists(TurnLabel.objects.filter(turn__conversation_id=OuterRef("conversation_id"), annotator_id=person.pk)))
    return Assignment.objects.filter(annotator=person, conversation__topic__campaign=campaign).annotate(judged=judged)


def removal_of(campaign: Campaign, user) -> Removal:
    rows = list(_judged(campaign, user).values_list("judged", flat=True))
    return Removal(member=CampaignMember.objects.filter(campaign=campaign, user=user).exists(),
                   organiser=campaign.organisers.filter(pk=user.pk).exists(),
                   open_assignments=sum(1 for j in rows if not j), judged_assignments=sum(1 for j in rows if j))


@transaction.atomic
def remove_person(campaign: Campaign, user) -> Removal:
    """Take `user` out of the campaign (PeopleRefused for its last organiser)."""
    removal = removal_of(campaign, user)
    if removal.organiser and campaign.organisers.count() == 1:
        raise PeopleRefused([f"{user.get_username()} is the campaign's only organiser: add another one first"])
    CampaignMember.objects.filter(campaign=campaign, user=user).delete()
    campaign.organisers.remove(user)
    open_ids = [pk for pk, judged in _judged(campaign, user).values_list("pk", "judged") if not judged]
    Assignment.objects.filter(pk__in=open_ids).delete()
    return removal
