"""Classes: a teacher's pupils, joined by a code, their assignments and their progress.

An account becomes a teacher by making a class (its name, games and language). The class has
a **join code**: 8 letters and digits from an alphabet without look-alikes, read aloud in two
groups of four (``ABCD-EFGH``, 40 bits: a wrong code is rate limited, so guessing one is
hopeless). A pupil joins with the code and their name and is given a class account: a
pseudonym the world sees (``Pupil K7QM``: no public profile; the teacher alone sees the real
name) and a **picture pair** to log in again (two of ``PICTURES``, chosen at random; five
wrong pairs lock the pupil until the teacher resets them). The teacher also makes pupils in
bulk (cards to print), renames, resets and removes them; removing a pupil or deleting the
class deletes the pupils' accounts and personal data (their games with others stay, as
records do).

What pupils do on the learning pages (puzzles, exercises, lesson steps) is kept as
``activity``; the progress table counts it with their games.
"""

from __future__ import annotations

import json
import secrets
import time

from ..analysis.compete.glicko import Rating, after_game
from .accounts import digest
from .errors import BusyError, ConflictError, NotAllowedError, NotFoundError, \
    UnauthorizedError

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud, typed by a child
CODE_LENGTH = 8
PICTURES = ("lion", "elephant", "giraffe", "zebra", "monkey", "hippo", "crocodile", "turtle",
            "fish", "bird", "owl", "butterfly", "bee", "snail", "frog", "rabbit", "cat", "dog",
            "cow", "goat", "horse", "camel", "sun", "moon", "star", "tree", "flower", "drum",
            "ball", "house", "boat", "mango")  # the page draws each (emoji) and names it
PUPIL_TRIES = 5  # wrong picture pairs before the teacher must reset the pupil
CLASS_SIZE = 40  # pupils a class takes unless the teacher says otherwise
MAX_CLASS_SIZE = 100
CLASSES_PER_TEACHER = 20
ASSIGNMENTS_KEPT = 100  # a class's assignments at most
KINDS = ("puzzles", "exercises", "lesson", "worksheet")
ACTIVITY_GAP = 300.0  # seconds: a longer pause between a pupil's steps is not time spent
SESSION_CACHE_SECONDS = 30.0
SESSIONS_CACHED = 10_000


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def shown_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


def read_code(text: str) -> str:
    """A code as typed (any case, spaces or a dash) in its stored form."""
    return "".join(c for c in str(text).upper() if c.isalnum())[:CODE_LENGTH * 2]


def new_pictures() -> list[str]:
    return secrets.SystemRandom().sample(PICTURES, 2)


def _secret(pictures: list[str]) -> str:
    return digest(" ".join(pictures))


class Classes:
    """The classes of one site (in its ``Store``)."""

    def __init__(self, store, accounts) -> None:
        self.store = store
        self.accounts = accounts
        self._sessions: dict[str, tuple[str | None, float]] = {}

    # ----- classes ----------------------------------------------------------------------
    def create(self, teacher: str, name: str, games: list[str], language: str,
               size: int = CLASS_SIZE) -> dict:
        if self.pupil(teacher) is not None:
            raise NotAllowedError("a pupil's account cannot make a class", code="pupil_only")
        (held,) = self.store.execute("SELECT COUNT(*) FROM classes WHERE teacher = ?",
                                     (teacher,)).fetchone()
        if held >= CLASSES_PER_TEACHER:
            raise ConflictError(f"a teacher has at most {CLASSES_PER_TEACHER} classes: delete "
                                "one", code="too_many_classes", count=CLASSES_PER_TEACHER)
        class_id, code = secrets.token_urlsafe(6), new_code()
        self.store.execute("INSERT INTO classes VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           (class_id, name, teacher, json.dumps(games), language, code, size,
                            time.time()))
        return {"id": class_id, "code": shown_code(code)}

    def _row(self, class_id: str):
        row = self.store.execute("SELECT id, name, teacher, games, language, code, size, "
                                 "created FROM classes WHERE id = ?",
                                 (class_id[:40],)).fetchone()
        if row is None:
            raise NotFoundError("no such class", code="no_class")
        return row

    def get(self, class_id: str) -> dict:
        return _class(self._row(class_id))

    def of_teacher(self, class_id: str, teacher: str | None) -> dict:
        """The class ``class_id`` when ``teacher`` teaches it (else NotFoundError: another
        teacher's class is not even said to exist)."""
        row = self._row(class_id)
        if row[2] != teacher:
            raise NotFoundError("no such class", code="no_class")
        return _class(row)

    def classes_of(self, teacher: str) -> list[dict]:
        return [_class(row) for row in self.store.execute(
            "SELECT id, name, teacher, games, language, code, size, created FROM classes "
            "WHERE teacher = ? ORDER BY created", (teacher,))]

    def delete(self, class_id: str) -> None:
        """The class goes (its pupils' accounts are deleted first: ``Hub.forget``)."""
        self.store.execute("DELETE FROM classes WHERE id = ?", (class_id,))

    # ----- pupils -----------------------------------------------------------------------
    def join(self, code: str, real_name: str) -> tuple[dict, dict]:
        """A new pupil of the class of ``code``: (the pupil with its pictures and session,
        the class). NotFoundError for a wrong code, BusyError for a full class."""
        row = self.store.execute("SELECT id FROM classes WHERE code = ?",
                                 (read_code(code),)).fetchone()
        if row is None:
            raise NotFoundError("no class has this code: check it with your teacher",
                                code="wrong_class_code")
        return self.add_pupil(row[0], real_name), _class(self._row(row[0]))

    def add_pupil(self, class_id: str, real_name: str) -> dict:
        """A pupil made in the class: their account name, real name, pictures, session."""
        klass = _class(self._row(class_id))
        with self.store.transaction():
            self.store.lock_named("classes")
            (count,) = self.store.execute("SELECT COUNT(*) FROM pupils WHERE class_id = ?",
                                          (class_id,)).fetchone()
            if count >= klass["size"]:
                raise BusyError(f"the class is full ({klass['size']} pupils): ask your teacher",
                                code="class_full", count=klass["size"])
            taken = self.store.execute("SELECT 1 FROM pupils WHERE class_id = ? AND "
                                       "real_name = ?", (class_id, real_name)).fetchone()
            if taken:
                raise ConflictError(f"{real_name} is in the class already: log in with your "
                                    "pictures", code="pupil_exists", name=real_name)
            name = self._pseudonym()
            pictures = new_pictures()
            self.store.execute("INSERT INTO accounts (name, hash, created) VALUES (?, ?, ?)",
                               (name, "", time.time()))  # no password: the pictures log in
            self.store.execute("INSERT INTO pupils VALUES (?, ?, ?, ?, ?, ?)",
                               (name, class_id, real_name, _secret(pictures), 0, time.time()))
        return {"pupil": name, "real_name": real_name, "pictures": pictures,
                "session": self.accounts.new_session(name)}

    def _pseudonym(self) -> str:
        for _ in range(100):
            name = "Pupil " + "".join(secrets.choice(CODE_ALPHABET) for _ in range(4))
            if not self.accounts.held(name):
                return name
        raise BusyError("no pupil name is free; try again")

    def log_in(self, code: str, real_name: str, pictures: list[str]) -> tuple[str, str]:
        """A pupil's session by the class code, their name and their two pictures:
        (account name, session). UnauthorizedError for wrong pictures; after
        ``PUPIL_TRIES`` wrong pairs the teacher must reset the pupil."""
        row = self.store.execute(
            "SELECT pupils.name, secret, tries FROM pupils JOIN classes ON classes.id = "
            "pupils.class_id WHERE classes.code = ? AND real_name = ?",
            (read_code(code), real_name)).fetchone()
        if row is None:
            raise UnauthorizedError("no such pupil in a class with this code",
                                    code="wrong_pupil")
        name, secret, tries = row
        if tries >= PUPIL_TRIES:
            raise UnauthorizedError("too many wrong pictures: ask your teacher to reset you",
                                    code="pupil_locked")
        if not secrets.compare_digest(secret, _secret(list(pictures))):
            self.store.execute("UPDATE pupils SET tries = tries + 1 WHERE name = ?", (name,))
            raise UnauthorizedError("these are not your pictures", code="wrong_pictures")
        self.store.execute("UPDATE pupils SET tries = 0 WHERE name = ?", (name,))
        return name, self.accounts.new_session(name)

    def pupil_of_session(self, token: str) -> str | None:
        """The pupil a session cookie logs in, or None (kept ``SESSION_CACHE_SECONDS``: every
        request with a cookie asks, to count a pupil as a pupil)."""
        now = time.monotonic()
        cached = self._sessions.get(token)
        if cached is not None and now - cached[1] < SESSION_CACHE_SECONDS:
            return cached[0]
        row = self.store.execute(
            "SELECT pupils.name FROM sessions JOIN pupils ON pupils.name = sessions.name "
            "WHERE sessions.digest = ?", (digest(token),)).fetchone()
        if len(self._sessions) > SESSIONS_CACHED:
            self._sessions.clear()
        self._sessions[token] = (None if row is None else row[0], now)
        return self._sessions[token][0]

    def pupil(self, name: str | None) -> dict | None:
        """The class membership of account ``name`` (None: not a pupil)."""
        if name is None:
            return None
        row = self.store.execute("SELECT class_id, real_name FROM pupils WHERE name = ?",
                                 (name,)).fetchone()
        return None if row is None else {"class_id": row[0], "real_name": row[1]}

    def apart(self, one: str | None, other: str | None) -> bool:
        """Whether ``one`` and ``other`` (accounts, None for a guest) may not meet: a pupil
        meets their classmates and teacher only (no lobby with strangers)."""
        a, b = self.pupil(one), self.pupil(other)
        if a is None and b is None:
            return False
        if a is not None and b is not None:
            return a["class_id"] != b["class_id"]
        pupil, adult = (a, other) if a is not None else (b, one)
        return adult is None or self.get(pupil["class_id"])["teacher"] != adult

    def check_public(self, name: str | None) -> None:
        """NotAllowedError for a pupil: the public lobby and arenas are not for them."""
        if self.pupil(name) is not None:
            raise NotAllowedError("a class account plays its classmates only",
                                  code="class_account")

    def pupils(self, class_id: str) -> list[dict]:
        return [{"pupil": name, "real_name": real_name, "locked": tries >= PUPIL_TRIES,
                 "joined": created}
                for name, real_name, tries, created in self.store.execute(
                    "SELECT name, real_name, tries, created FROM pupils WHERE class_id = ? "
                    "ORDER BY real_name", (class_id,))]

    def check_pupil(self, class_id: str, pupil: str) -> None:
        if self.store.execute("SELECT 1 FROM pupils WHERE name = ? AND class_id = ?",
                              (pupil[:40], class_id)).fetchone() is None:
            raise NotFoundError("no such pupil in this class", code="no_pupil")

    def reset(self, class_id: str, pupil: str) -> list[str]:
        """New pictures for a pupil (unlocked); their sessions end."""
        self.check_pupil(class_id, pupil)
        pictures = new_pictures()
        self.store.execute("UPDATE pupils SET secret = ?, tries = 0 WHERE name = ?",
                           (_secret(pictures), pupil))
        self.store.execute("DELETE FROM sessions WHERE name = ?", (pupil,))
        return pictures

    def rename(self, class_id: str, pupil: str, real_name: str) -> None:
        self.check_pupil(class_id, pupil)
        if self.store.execute("SELECT 1 FROM pupils WHERE class_id = ? AND real_name = ? AND "
                              "name != ?", (class_id, real_name, pupil)).fetchone():
            raise ConflictError(f"{real_name} is in the class already", code="pupil_exists",
                                name=real_name)
        self.store.execute("UPDATE pupils SET real_name = ? WHERE name = ?", (real_name, pupil))

    # ----- assignments ------------------------------------------------------------------
    def assign(self, class_id: str, assignment: dict) -> dict:
        (count,) = self.store.execute("SELECT COUNT(*) FROM assignments WHERE class_id = ?",
                                      (class_id,)).fetchone()
        if count >= ASSIGNMENTS_KEPT:
            raise ConflictError(f"a class keeps at most {ASSIGNMENTS_KEPT} assignments",
                                code="too_many_assignments", count=ASSIGNMENTS_KEPT)
        made = {"id": secrets.token_urlsafe(6), **assignment, "created": time.time()}
        self.store.execute("INSERT INTO assignments VALUES (?, ?, ?, ?)",
                           (made["id"], class_id, json.dumps(made), made["created"]))
        return made

    def assignments(self, class_id: str) -> list[dict]:
        return [json.loads(text) for (text,) in self.store.execute(
            "SELECT assignment FROM assignments WHERE class_id = ? ORDER BY created",
            (class_id,))]

    def unassign(self, class_id: str, assignment_id: str) -> None:
        if not self.store.execute("DELETE FROM assignments WHERE class_id = ? AND id = ?",
                                  (class_id, assignment_id[:40])).rowcount:
            raise NotFoundError("no such assignment", code="no_assignment")

    # ----- activity and progress --------------------------------------------------------
    def note(self, name: str | None, kind: str, game: str, item: str, correct: bool) -> None:
        """A pupil's step on a learning page (nothing for anyone else)."""
        if self.pupil(name) is None:
            return
        self.store.execute("INSERT INTO activity VALUES (?, ?, ?, ?, ?, ?)",
                           (name, kind, game, item[:60], int(correct), time.time()))

    def activity(self, name: str) -> list[tuple]:
        return self.store.execute("SELECT kind, game, item, correct, at FROM activity WHERE "
                                  "name = ? ORDER BY at", (name,)).fetchall()

    def done(self, name: str, assignment: dict, steps: list[tuple] | None = None) -> dict:
        """How far pupil ``name`` is with ``assignment``: ``done`` of ``wanted``."""
        steps = self.activity(name) if steps is None else steps  # read once for many tasks
        rows = [r for r in steps if r[1] == assignment["game"]
                and r[4] >= assignment["created"]]
        kind = assignment["kind"]
        if kind == "puzzles":  # of the assignment's theme, where it names one
            solved = {item for k, _, item, correct, _ in rows if k == "puzzle" and correct}
            done = len([item for item in solved
                        if assignment.get("theme") in (None, *_puzzle_themes(item))])
        elif kind == "exercises":
            done = sum(1 for k, _, item, correct, _ in rows if k == "exercise" and correct
                       and item == assignment.get("exercise", item))
        elif kind == "lesson":
            done = len({item for k, _, item, correct, _ in rows if k == "lesson" and correct})
        else:
            done = 0  # a worksheet is done on paper
        return {"done": min(done, assignment["count"]), "wanted": assignment["count"]}

    def progress(self, class_id: str, games_of) -> list[dict]:
        """One row a pupil: lessons, exercises by kind, puzzles and their rating, games and
        their results (``games_of(name)``: (wins, draws, losses)), minutes spent, and each
        assignment's progress."""
        tasks = self.assignments(class_id)
        rows = []
        for pupil in self.pupils(class_id):
            name = pupil["pupil"]
            steps = self.activity(name)
            exercises: dict[str, list[int]] = {}
            for kind, _, item, correct, _ in steps:
                if kind == "exercise":
                    exercises.setdefault(item, [0, 0])[0 if correct else 1] += 1
            wins, draws, losses = games_of(name)
            rows.append({
                **pupil,
                "lessons": len({(game, item) for kind, game, item, correct, _ in steps
                                if kind == "lesson" and correct}),
                "exercises": {k: {"right": r, "wrong": w} for k, (r, w) in exercises.items()},
                "puzzles_tried": sum(1 for s in steps if s[0] == "puzzle"),
                "puzzles_solved": len({s[2] for s in steps if s[0] == "puzzle" and s[3]}),
                "puzzle_rating": round(puzzle_rating(steps)),
                "games": wins + draws + losses, "wins": wins, "draws": draws,
                "losses": losses, "minutes": round(_seconds_spent(steps) / 60, 1),
                "assignments": {task["id"]: self.done(name, task, steps) for task in tasks},
            })
        return rows

    def weekly(self, class_id: str) -> list[dict]:
        """The class's right answers week by week (for its chart)."""
        weeks: dict[int, int] = {}
        for (at,) in self.store.execute(
                "SELECT activity.at FROM activity JOIN pupils ON pupils.name = activity.name "
                "WHERE pupils.class_id = ? AND activity.correct = 1", (class_id,)):
            week = int(at // (7 * 86400))
            weeks[week] = weeks.get(week, 0) + 1
        return [{"week": week * 7 * 86400, "right": count}
                for week, count in sorted(weeks.items())]


def puzzle_rating(steps: list[tuple]) -> float:
    """The puzzle rating the pupil's tries give (Glicko-2 against each puzzle's rating, from
    1500), as the puzzles page keeps its own."""
    from ..analysis.teach import puzzles

    rating = Rating()
    for kind, _, item, correct, _ in steps:
        found = puzzles.find(item) if kind == "puzzle" else None
        if found is not None:
            rating = after_game(rating, Rating(found.rating, 60.0), 1.0 if correct else 0.0)[0]
    return rating.rating


def _puzzle_themes(puzzle_id: str) -> tuple[str, ...]:
    from ..analysis.teach import puzzles

    found = puzzles.find(puzzle_id)
    return () if found is None else puzzles.themes(found)


def _seconds_spent(steps: list[tuple]) -> float:
    """Time on the learning pages: the gaps between a pupil's steps, a long pause not
    counted."""
    times = [step[4] for step in steps]
    return sum(min(b - a, ACTIVITY_GAP) for a, b in zip(times, times[1:]))


def _class(row) -> dict:
    class_id, name, teacher, games, language, code, size, created = row
    return {"id": class_id, "name": name, "teacher": teacher, "games": json.loads(games),
            "language": language, "code": shown_code(code), "size": size, "created": created}
