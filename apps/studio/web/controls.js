// Parameter controls generated from the registry's descriptors (name, default, min, max, help,
// integer): a slider (logarithmic where the range spans decades), a number box and a reset.

const STEPS = 1000;

// Logarithmic when the range spans two decades or more; a range starting at 0 gets log1p.
function scaleFor(desc) {
  if (desc.integer) return { toPos: v => v, fromPos: p => Math.round(p), min: desc.min, max: desc.max, step: 1 };
  if (desc.min > 0 && desc.max / desc.min >= 100) {
    const a = Math.log(desc.min), b = Math.log(desc.max);
    return { toPos: v => (Math.log(v) - a) / (b - a) * STEPS, fromPos: p => Math.exp(a + p / STEPS * (b - a)), min: 0, max: STEPS, step: 1 };
  }
  if (desc.min === 0 && desc.max >= 100) {
    const b = Math.log1p(desc.max);
    return { toPos: v => Math.log1p(v) / b * STEPS, fromPos: p => Math.expm1(p / STEPS * b), min: 0, max: STEPS, step: 1 };
  }
  return { toPos: v => (v - desc.min) / (desc.max - desc.min) * STEPS, fromPos: p => desc.min + p / STEPS * (desc.max - desc.min), min: 0, max: STEPS, step: 1 };
}

// Three significant digits for display; the value sent is the slider's or the typed one.
function tidy(v, desc) {
  if (desc.integer) return Math.round(v);
  const clamped = Math.min(desc.max, Math.max(desc.min, v));
  return Number(clamped.toPrecision(4));
}

// Builds one row per descriptor into `container`; onChange(name, value) on every move.
export function buildControls(container, descs, values, onChange, prefix) {
  container.replaceChildren();
  const setters = {};
  for (const desc of descs) {
    const scale = scaleFor(desc);
    const id = `${prefix}-${desc.name}`;
    const row = document.createElement('div');
    row.className = 'param';
    row.title = `${desc.help}\nrange [${desc.min}, ${desc.max}], default ${desc.default}`;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = desc.name;
    const slider = document.createElement('input');
    Object.assign(slider, { type: 'range', id, min: scale.min, max: scale.max, step: scale.step });
    slider.dataset.param = desc.name;
    const number = document.createElement('input');
    Object.assign(number, { type: 'number', min: desc.min, max: desc.max, step: desc.integer ? 1 : 'any' });
    number.setAttribute('aria-label', `${desc.name} value`);
    const reset = document.createElement('button');
    reset.textContent = '↺';
    reset.title = `reset ${desc.name} to ${desc.default}`;
    reset.setAttribute('aria-label', `reset ${desc.name}`);
    const show = v => { slider.value = scale.toPos(v); number.value = v; };
    show(values[desc.name] ?? desc.default);
    slider.addEventListener('input', () => {
      const v = tidy(scale.fromPos(Number(slider.value)), desc);
      number.value = v;
      onChange(desc.name, v);
    });
    number.addEventListener('change', () => {
      const v = Number(number.value);
      if (!Number.isFinite(v) || v < desc.min || v > desc.max) { number.classList.add('error'); return; }
      number.classList.remove('error');
      const t = tidy(v, desc);
      slider.value = scale.toPos(t);
      onChange(desc.name, t);
    });
    reset.addEventListener('click', () => { show(desc.default); onChange(desc.name, desc.default); });
    row.append(label, slider, number, reset);
    container.append(row);
    setters[desc.name] = show;
  }
  return setters;
}
