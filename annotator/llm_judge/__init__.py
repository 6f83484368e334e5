"""An LLM as an automatic judge: a campaign annotated through any OpenAI-compatible server.

- `prompt`: the campaign as a prompt and the JSON schema of the answer (pure Python);
- `answers`: an answer read back: quotes located as words of the turn, grades and groups
  checked, evidence read by the attribute set's helper, problems reported (pure Python);
- `client`: one request through the `openai` client (timeout, retries with backoff), the
  answers cached in the database by (prompt, model, parameters);
- `runner`: a whole run (`manage.py judge_with_llm`, the console's background job): the
  conversations chosen, asked concurrently, and written through the judges' bulk path
  (annotator.judgments.edits.set_conversation_judgments);
- `jobs`: the console's background run (django-tasks) and its progress.

It sits beside the workspace (console and commands above it, interchange below) and never
imports a screen.
"""
