"""Harvesting from inside the app: a campaign's topics asked of a system through one of the
deployment's listed LLM servers, trial after trial, each conversation imported as a harvested
file is (its citations proposed nuggets) with where each turn came from (docs/harvesting.md).

- `protocol`: what is asked, in what order (the first user turn from the topic type's
  template, the follow-ups, a simulated user's prompt) and the request/response log a held
  conversation is written as (pure Python, no Django);
- `asking`: one conversation held with the server, turn after turn, through the `openai`
  client of annotator.llm_judge.client (its timeout and retries); no database, safe in a thread;
- `runner`: a whole harvest (`manage.py harvest`, the console's job): what is asked, what is
  kept, the conversations in flight, each imported all or nothing with its provenance;
- `jobs`: the console's background harvest (django-tasks), its progress and cancel.

It sits above annotator.llm_judge (whose listed servers and client it uses) and below the
console and the commands; it never imports a screen.
"""
