// normlab web: the clock slider submits on change; a seat page refreshes while others answer.
document.addEventListener("DOMContentLoaded", () => {
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
