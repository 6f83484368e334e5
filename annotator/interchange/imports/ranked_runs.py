"""Importing ranked-list runs (TREC run files) into a campaign, all or nothing.

A file is one run, named by its tag (or by the name given, for a single file). Each topic's
list is the file's order, as NTCIREVAL scores it; the rank and score columns are kept beside
it, and where they disagree with that order the reader warns. Documents are keyed like
entities (`rules.identity.document_key`), so a run is scored from whatever judgments the
campaign has for those keys. Re-importing a run replaces its lists.

A list is stored as what it is (models.RankedList): one row per run and topic holding the
documents as numbers into the topic's judged documents (models.TopicDocument), the others'
keys apart. A plain, sound file is read as columns by pyarrow's CSV reader, its keys looked
up a few files at a time and numbered a file at a time by pyarrow and numpy, never a Python
string a document (`formats.run_columns.read_run_columns`, `_Catalogue.look_up`,
`_Catalogue.places`); any other, or one ranking a page twice for a topic, is read line by line
(`read_run`), which says what is wrong and where, as `file:line`.

Files are planned and written one at a time, in order, inside one transaction (memory stays
that of a few files, `_FILES_AT_ONCE`, however many runs); any problem in any file and the
transaction is rolled back (imports.all_or_nothing).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from annotator.interchange.formats import arrow
from annotator.interchange.formats.model import FormatError
from annotator.interchange.formats.ntcireval import read_run
from annotator.interchange.formats.run_columns import RunColumns, TopicColumns, read_run_columns, run_columns, twice_for_a_topic
from annotator.interchange.imports.all_or_nothing import one_transaction
from annotator.interchange.imports.result import ImportResult, RankedRun
from annotator.interchange.imports.rows import insert_rows
from annotator.models import Campaign, Entity, RankedList, Run, Topic, TopicDocument
from annotator.rules.identity import document_key
from annotator.rules.ids import RUN, id_problem

__all__ = ["import_runs", "encode_list", "stored_lists"]


def import_runs(campaign: Campaign, files: list[tuple[str, bytes]], name: str | None = None) -> ImportResult:
    """Import (file name, bytes) run files; `name` names the run of a single file."""
    result = ImportResult(what="runs")
    if name is not None and len(files) != 1:
        result.error(files[0][0] if files else "-", 0, "a run name names one run: give one file")
        return result
    # The plan numbers documents from the catalogue it reads: plan and writing share the
    # transaction that holds the campaign's topics (imports.all_or_nothing).
    with one_transaction(result):
        _import(campaign, files, name, result)
    return result


class _Catalogue:
    """The campaign's judged documents by number (TopicDocument), and the keys judged now (an
    entity of the topic has them): a key judged now and not numbered yet gets the next number.

    A whole file is numbered at once, by pyarrow and numpy (no Python string a document): each
    key is looked up among all the keys the campaign numbers or judges (`keys`, a key's place
    there `k`; `look_up`, several files at once). A key's number and whether it is judged are
    kept by k for one topic, the key's `home` (most keys are one topic's); a (topic, key) pair
    of another topic by its code `topic * len(keys) + k`, among the codes of such numbered pairs
    (`numbered_codes`, beside their `numbers`) and judged ones (`judged_codes`)."""

    def __init__(self, campaign: Campaign):
        numbered = list(TopicDocument.objects.filter(topic__campaign=campaign).values_list("topic_id", "number", "key"))
        judged = list(Entity.objects.filter(topic__campaign=campaign).order_by().values_list("topic_id", "key").distinct())
        # the rows (the numbered, then the judged) by their key's place k and their topic's index t,
        # keys and topics placed in the order rows first name them (numpy, not a Python step a row)
        place = {key: k for k, key in enumerate(dict.fromkeys([key for _, _, key in numbered] + [key for _, key in judged]))}
        self.keys = arrow.strings(list(place))
        k = np.fromiter((place[key] for key in [key for _, _, key in numbered] + [key for _, key in judged]),
                        np.int64, len(numbered) + len(judged))
        topic_ids, first, t = np.unique(np.array([topic_id for topic_id, _, _ in numbered] + [topic_id for topic_id, _ in judged],
                                                 dtype=np.int64), return_index=True, return_inverse=True)
        met = np.argsort(first)
        self.topics: dict[int, int] = dict(zip(topic_ids[met].tolist(), range(len(met))))  # topic id -> its index in the codes
        t = np.argsort(met)[t].astype(np.int64)
        # by k, and one more for no key (k = -1): a key's topic index (its first row's: its home), its number there (or -1), judged there
        self.home = np.full(len(place) + 1, -1, dtype=np.int64)
        self.home[:len(place)] = t[np.unique(k, return_index=True)[1]]  # (every k has a row)
        self.home_number = np.full(len(place) + 1, -1, dtype=np.int64)
        self.home_judged = np.zeros(len(place) + 1, dtype=bool)
        home = self.home[k] == t
        codes = t * len(place) + k
        numbers = np.array([number for _, number, _ in numbered], dtype=np.int64)
        is_numbered = np.arange(len(k)) < len(numbered)
        self.home_number[k[is_numbered & home]] = numbers[home[is_numbered]]
        self.numbered_codes, self.numbers = codes[is_numbered & ~home], numbers[~home[is_numbered]]
        self.home_judged[k[~is_numbered & home]] = True
        self.judged_codes = arrow.numbers(codes[~is_numbered & ~home])
        last = np.full(len(met), -1, dtype=np.int64)
        np.maximum.at(last, t[is_numbered], numbers)
        self.next: dict[int, int] = {  # topic id -> its next number
            topic_id: number + 1 for topic_id, number in zip(self.topics, last.tolist()) if number >= 0}
        self.new: list[tuple[int, int, str]] = []

    def _topic(self, topic_id: int) -> int:
        return self.topics.setdefault(topic_id, len(self.topics))

    def look_up(self, files: list[list[tuple[int, pa.Array, TopicColumns]]]) -> list[np.ndarray | None]:
        """Each file's keys' places k among `keys`, its lists' one after another (-1 for a key
        not there); None for a file that ranks a key twice for a topic (read line by line then,
        to say where).

        Several files are looked up at once, by one dictionary encoding of the campaign's keys
        followed by the files' (the campaign's are distinct: the first k encode as k), which is
        also the check: the 50,000-key hash of a FairWeb-size campaign is built once for them,
        not once a file, and no other hash is built."""
        if not files:
            return []
        sizes = [[len(list_keys) for _, list_keys, _ in lists] for lists in files]
        encoded = pa.chunked_array([self.keys, *(list_keys for lists in files for _, list_keys, _ in lists)],
                                   type=pa.string()).dictionary_encode()
        codes = np.concatenate([arrow.to_numpy(chunk.indices) for chunk in encoded.chunks])  # (empty chunks dropped)
        bounds = np.cumsum([len(self.keys), *map(sum, sizes)])
        found = []
        for list_sizes, file_codes in zip(sizes, np.split(codes, bounds[:-1])[1:]):
            twice = twice_for_a_topic(np.repeat(np.arange(len(list_sizes)), list_sizes), file_codes)
            found.append(None if twice else np.where(file_codes < len(self.keys), file_codes, -1).astype(np.int64))
        return found

    def places(self, lists: list[tuple[int, pa.Array, TopicColumns]], k: np.ndarray) -> list[tuple[np.ndarray, str]]:
        """Each list's places, a key's place in a stored list being its number, or -(j + 1) for
        the j-th unjudged key of the list; and the list's unjudged keys in that order, one a line
        (`k`: the places of the lists' keys among `keys`, one list after another: `look_up`)."""
        keys = pa.chunked_array([list_keys for _, list_keys, _ in lists], type=pa.string())
        sizes = np.array([len(list_keys) for _, list_keys, _ in lists])
        of_list = np.repeat(np.arange(len(lists)), sizes)  # each row's list
        topic = np.repeat([self._topic(topic_id) for topic_id, _, _ in lists], sizes)
        home = self.home[k] == topic  # k = -1: the last, no key's
        places = np.where(home, self.home_number[k], -1)
        judged = home & self.home_judged[k]
        away = np.flatnonzero((k >= 0) & ~home)
        if away.size:  # pairs of a key with another topic than its home
            codes = arrow.numbers(topic[away] * len(self.keys) + k[away])
            at = arrow.to_numpy(pc.index_in(codes, value_set=arrow.numbers(self.numbered_codes)), null=-1)
            places[away[at >= 0]] = self.numbers[at[at >= 0]]
            judged[away] = arrow.to_numpy(pc.is_in(codes, value_set=self.judged_codes))
        missing = np.flatnonzero(places < 0)
        judged = judged[missing]
        new = missing[judged]
        if new.size:  # judged now: numbered from the topic's next number in the list's order
            counts = np.bincount(of_list[new], minlength=len(lists))
            places[new] = np.repeat([self.next.get(topic_id, 0) for topic_id, _, _ in lists], counts) + _within(counts)
            for (topic_id, _, _), count in zip(lists, counts.tolist()):
                self.next[topic_id] = self.next.get(topic_id, 0) + count
            self.new.extend(zip(np.repeat([topic_id for topic_id, _, _ in lists], counts).tolist(), places[new].tolist(),
                                keys.take(arrow.numbers(new)).to_pylist()))
            self.home_number[k[new[home[new]]]] = places[new[home[new]]]
            self.numbered_codes = np.concatenate((self.numbered_codes, topic[new[~home[new]]] * len(self.keys) + k[new[~home[new]]]))
            self.numbers = np.concatenate((self.numbers, places[new[~home[new]]]))
        unjudged = missing[~judged]
        counts = np.bincount(of_list[unjudged], minlength=len(lists))
        places[unjudged] = -1 - _within(counts)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
        texts = pc.binary_join(pa.ListArray.from_arrays(arrow.numbers(offsets), keys.take(arrow.numbers(unjudged)).combine_chunks()), _NEWLINE).to_pylist()
        bounds = np.cumsum(sizes)[:-1]
        return list(zip(np.split(places.astype("<i4"), bounds), texts))

    def write(self) -> None:
        insert_rows(TopicDocument, ["topic_id", "number", "key"], self.new)
        self.new = []


_NEWLINE = arrow.strings(["\n"])[0]  # a scalar: pyarrow turns a Python one into its own through pandas


def _within(counts: np.ndarray) -> np.ndarray:
    """0, 1, 2... within each group of rows, for groups of these sizes one after another."""
    return np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)


def encode_list(places: np.ndarray, unjudged: str, columns: TopicColumns) -> tuple:
    """(length, documents, unjudged, scores, stated_ranks) as a RankedList stores them."""
    ranks = columns.ranks.astype("<i8")
    natural = ranks.size and ranks[0] == 1 and np.array_equal(ranks, np.arange(1, ranks.size + 1))
    return (len(places), places.astype("<i4").tobytes(), unjudged, columns.scores.astype("<f8").tobytes(),
            b"" if natural else ranks.tobytes())


def _keys(documents: pa.Array, urls: bool) -> pa.Array:
    """The documents' entity keys: the ids themselves unless the file may hold a URL (`urls`)."""
    if urls:
        return arrow.strings([document_key(d) for d in documents.to_pylist()])
    return documents


def _may_hold_urls(data: bytes) -> bool:
    """Whether a file may hold a URL (`://` or `www.`, in any case): else its ids are their keys.
    (A byte is looked for first: memchr, a tenth of the time of looking for the words.)"""
    return (b":" in data and b"://" in data) or ((b"w" in data or b"W" in data) and b"www." in data.lower())


def _import(campaign: Campaign, files, name, result: ImportResult) -> None:
    """Each file planned (read, checked against the campaign, its documents numbered), then
    written while no file so far had a problem; the planning goes on to report every file's."""
    runs = _RunFiles(campaign, name, result)
    for path, data, columns, urls, lists, found in _read(files, runs.topics, runs.catalogue):
        plan = runs.plan(path, data, columns, urls, lists, found)
        if plan is not None and result.ok:
            runs.write(plan)


@dataclass
class _RunPlan:
    path: str
    name: str
    run: Run | None  # the run it replaces
    rows: list[tuple[int, tuple]]  # (topic id, the list as stored: encode_list)


class _RunFiles:
    def __init__(self, campaign: Campaign, name: str | None, result: ImportResult):
        self.campaign, self.name, self.result = campaign, name, result
        self.topics = dict(Topic.objects.select_for_update().filter(campaign=campaign).values_list("code", "pk"))
        self.runs = {r.name: r for r in Run.objects.filter(campaign=campaign)}
        self.catalogue = _Catalogue(campaign)
        self.named: dict[str, str] = {}  # run name -> the file it came from

    def plan(self, path, data, columns, urls, lists, found) -> _RunPlan | None:
        """One file's run checked and its lists encoded (None when it has a problem, or one came
        before); writes nothing."""
        result = self.result
        if found is None:  # read line by line: every problem with its line
            lists = None
            read = read_run(data, path)
            result.errors.extend(read.errors)
            result.warnings.extend(read.warnings)
            columns = run_columns(read.content) if read.content.tag is not None else None
            if columns is None:
                if not read.errors:
                    result.error(path, 0, "no run lines (`topic Q0 doc rank score tag`)")
                return None
        run_name = self.name or columns.tag
        if (problem := id_problem(RUN, run_name)) is not None:
            result.error(path, 0, f"{problem}: it cannot name a run (at most 100 characters, no spaces)")
            return None
        if run_name in self.named:
            result.error(path, 0, f"run {run_name} is also in {self.named[run_name]}")
            return None
        self.named[run_name] = path
        run = self.runs.get(run_name)
        if run is not None and run.kind != Run.Kind.RANKED_LISTS:
            result.error(path, 0, f"run {run_name} is a conversation run: name this one otherwise (--name)")
            return None
        if lists is None:
            _check_lines(path, read.content.lines, self.topics, result)
        if result.errors:
            return None  # keep reading: every file's problems are reported, nothing is written
        if lists is None:
            lists = _lists(columns, self.topics, urls)
            found = self.catalogue.look_up([lists])[0]
        rows = [(topic_id, encode_list(places, unjudged, topic_columns))
                for (topic_id, _, topic_columns), (places, unjudged) in zip(lists, self.catalogue.places(lists, found))]
        return _RunPlan(path, run_name, run, rows)

    def write(self, plan: _RunPlan) -> None:
        run = plan.run
        if run is None:
            system, trial = Run.system_and_trial_of(plan.name)
            run = self.runs[plan.name] = Run.objects.create(campaign=self.campaign, name=plan.name, kind=Run.Kind.RANKED_LISTS,
                                                            system=system, trial=trial, source=plan.path[:500])
        else:
            RankedList.objects.filter(run=run).delete()
            Run.objects.filter(pk=run.pk).update(source=plan.path[:500])
        self.catalogue.write()
        insert_rows(RankedList, ["run_id", "topic_id", "length", "documents", "unjudged", "scores", "stated_ranks"],
                    [(run.pk, topic_id, *stored) for topic_id, stored in plan.rows])
        self.result.ranked_runs.append(RankedRun(plan.name, len(plan.rows), sum(stored[0] for _, stored in plan.rows),
                                                 plan.run is not None))


# Files looked up together (`_Catalogue.look_up`): the campaign's keys are hashed once for them
# all, not once a file (docs/benchmarks-history.md, "Ranked-list runs").
_FILES_AT_ONCE = 8


def _read(files, topics: dict[str, int], catalogue: _Catalogue):
    """(path, data, columns, urls, lists, found) of each file in turn, the files read as columns
    and their keys looked up (`_Catalogue.look_up`) a few files at a time; columns None when the
    file is not read as columns, found None when its keys are not looked up (read it line by line)."""
    for start in range(0, len(files), _FILES_AT_ONCE):
        read = []
        for path, data in files[start:start + _FILES_AT_ONCE]:
            columns = read_run_columns(data, path, check_documents=False)  # the keys are checked by look_up
            urls = _may_hold_urls(data)
            read.append((path, data, columns, urls, _lists(columns, topics, urls) if columns is not None else None))
        found = iter(catalogue.look_up([lists for *_, lists in read if lists is not None]))
        for path, data, columns, urls, lists in read:
            yield path, data, columns, urls, lists, next(found) if lists is not None else None


def _lists(columns: RunColumns, topics: dict[str, int], urls: bool) -> list[tuple[int, pa.Array, TopicColumns]] | None:
    """(topic id, keys, columns) of each topic's list; None when a topic is not the campaign's
    (read line by line then, to say where; two ids of a list that are one page: `_Catalogue.look_up`)."""
    lists = []
    for code, topic_columns in columns.topics.items():
        topic_id = topics.get(code)
        if topic_id is None:
            return None
        lists.append((topic_id, _keys(topic_columns.documents, urls), topic_columns))
    return lists


def _check_lines(path: str, lines, topics: dict[str, int], result: ImportResult) -> None:
    """What the campaign says of a file's lines: unknown topics (once each) and two ids of
    one page are errors, each with its line."""
    keys: dict[tuple[str, str], int] = {}
    unknown: set[str] = set()
    for line in lines:
        if topics.get(line.topic) is None:
            if line.topic not in unknown:
                unknown.add(line.topic)
                result.errors.append(FormatError(path, line.line, f"no topic {line.topic[:40]!r} in the campaign"))
            continue
        key = document_key(line.document)
        if (line.topic, key) in keys:
            result.errors.append(FormatError(path, line.line, f"{line.document[:100]} is the page ranked at line "
                                                              f"{keys[(line.topic, key)]} for {line.topic}"))
            continue
        keys[(line.topic, key)] = line.line


def stored_lists(run: Run) -> dict[str, list[tuple[str, int, float]]]:
    """topic code -> the run's list as stored: (document key, stated rank, score) in the file's order."""
    out = {}
    rows = RankedList.objects.filter(run=run).order_by("topic__code").values_list(
        "topic_id", "topic__code", "documents", "unjudged", "scores", "stated_ranks")
    topic_ids = {row[0] for row in rows}
    keys: dict[int, dict[int, str]] = {}
    for topic_id, number, key in TopicDocument.objects.filter(topic_id__in=topic_ids).values_list("topic_id", "number", "key"):
        keys.setdefault(topic_id, {})[number] = key
    for topic_id, code, documents, unjudged, scores, stated in rows:
        places = np.frombuffer(bytes(documents), dtype="<i4")
        others = unjudged.split("\n")
        ranks = np.frombuffer(bytes(stated), dtype="<i8") if stated else np.arange(1, places.size + 1)
        out[code] = [(keys[topic_id][p] if p >= 0 else others[-p - 1], int(r), float(s))
                     for p, r, s in zip(places.tolist(), ranks.tolist(), np.frombuffer(bytes(scores), dtype="<f8").tolist())]
    return out
