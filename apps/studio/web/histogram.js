// The log10 luminance histogram of the scene (bars, sqrt of counts so dark tails stay visible)
// and the operator's curve measured on the output (mean output value per bin), over it.

export function drawHistogram(canvas, caption, data) {
  const g = canvas.getContext('2d');
  const w = canvas.width, h = canvas.height;
  g.clearRect(0, 0, w, h);
  const n = data.counts.length;
  const peak = Math.sqrt(Math.max(1, ...data.counts));
  g.fillStyle = '#5b6573';
  for (let i = 0; i < n; i++) {
    const bh = Math.sqrt(data.counts[i]) / peak * (h - 4);
    g.fillRect(i * w / n, h - bh, Math.max(1, w / n - 0.5), bh);
  }
  g.strokeStyle = '#ffb347';
  g.lineWidth = 2;
  g.beginPath();
  let started = false;
  for (let i = 0; i < n; i++) {
    if (data.curve[i] < 0) continue;
    const x = (i + 0.5) * w / n, y = h - 2 - data.curve[i] * (h - 4);
    if (started) g.lineTo(x, y); else { g.moveTo(x, y); started = true; }
  }
  g.stroke();
  caption.textContent = `log10 L from ${data.log10_min.toFixed(2)} to ${data.log10_max.toFixed(2)} ` +
    `(${data.dynamic_range_stops.toFixed(1)} stops); orange: ${data.curve_kind}`;
}
