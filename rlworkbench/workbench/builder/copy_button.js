// A button that copies its model's `text` to the clipboard. The copy has to happen in the click handler itself:
// browsers allow clipboard writes only during a user gesture, which a round trip through the kernel would lose.

function render({ model, el }) {
  const button = document.createElement("button");
  button.className = "rlw-copy-button";
  const label = () => { button.textContent = model.get("label"); };
  label();
  button.addEventListener("click", async () => {
    const text = model.get("text");
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "copied ✓";
    } catch (error) {  // no clipboard (an insecure page): select the text in a prompt the user can copy from
      window.prompt("Copy the config:", text);
    }
    setTimeout(label, 1500);
  });
  model.on("change:label", label);
  el.appendChild(button);
}

export default { render };
