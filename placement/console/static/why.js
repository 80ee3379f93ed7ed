// "Why no candidate?": coming. The page that explains an allocation-candidates
// request (GET /diagnostics/allocation_candidates) replaces this placeholder.

import { el } from "./ui.js";

export async function mount(root) {
  root.append(
    el(
      "section",
      { class: "coming" },
      el("h2", {}, "Why no candidate?"),
      el(
        "p",
        {},
        "Coming: ask for allocation candidates and see, for every provider left out, the first rule that excluded it.",
      ),
    ),
  );
}
