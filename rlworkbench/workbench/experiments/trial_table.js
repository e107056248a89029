// The trial table of an experiment: rows come sorted from Python; a header click asks Python for another order.
function render({ model, el }) {
  const box = document.createElement('div');
  box.className = 'rlw-trials';
  el.appendChild(box);

  function draw() {
    const columns = model.get('columns');
    const rows = model.get('rows');
    const best = model.get('best');
    const sortBy = model.get('sort_by');
    const descending = model.get('descending');
    const table = document.createElement('table');
    const head = table.createTHead().insertRow();
    columns.forEach((name) => {
      const th = document.createElement('th');
      th.textContent = name + (name === sortBy ? (descending ? ' ▼' : ' ▲') : '');
      th.dataset.column = name;
      if (name === sortBy) th.classList.add('rlw-sorted');
      th.addEventListener('click', () => {
        if (model.get('sort_by') === name) {
          model.set('descending', !model.get('descending'));
        } else {
          model.set('sort_by', name);
          model.set('descending', true);
        }
        model.save_changes();
      });
      head.appendChild(th);
    });
    const body = table.createTBody();
    const trialIndex = columns.indexOf('trial');
    const stateIndex = columns.indexOf('state');
    rows.forEach((cells) => {
      const row = body.insertRow();
      if (trialIndex >= 0 && cells[trialIndex] === best) row.classList.add('rlw-best');
      cells.forEach((text, index) => {
        const cell = row.insertCell();
        cell.textContent = text;
        if (index === stateIndex) cell.classList.add(`rlw-state-${text}`);
      });
    });
    box.replaceChildren(table);
  }

  draw();
  for (const name of ['columns', 'rows', 'best', 'sort_by', 'descending']) {
    model.on(`change:${name}`, draw);
  }
}

export default { render };
