// normlab web: the clock slider submits on change; a seat page refreshes while others answer;
// the new-study form offers only the runs the chosen kind of study can use.
document.addEventListener("DOMContentLoaded", () => {
  const kind = document.getElementById("kind");
  const run = document.getElementById("run");
  if (kind && run) {
    const match = () => {
      const system = kind.selectedOptions[0].dataset.system;
      for (const option of run.options) {
        option.hidden = option.dataset.system !== system;
      }
      if (run.selectedOptions[0] && run.selectedOptions[0].hidden) {
        const first = [...run.options].find((option) => !option.hidden);
        run.value = first ? first.value : "";
      }
    };
    kind.addEventListener("change", match);
    match();
  }
  const tick = document.getElementById("tick");
  if (tick) {
    tick.addEventListener("change", () => document.getElementById("clock").submit());
  }
  const status = document.getElementById("status");
  if (status && (status.dataset.status === "starting" || status.dataset.status === "waiting")) {
    const poll = async () => {
      const reply = await fetch(`/play/${status.dataset.seat}/state`);
      const state = await reply.json();
      if (state.status !== status.dataset.status || state.status === "your_turn") {
        window.location.reload();
      } else {
        setTimeout(poll, 300);
      }
    };
    setTimeout(poll, 300);
  }
});
