// The image area: canvas A, canvas B over it (clipped right of the divider, or shown whole in
// toggle mode), fitted to the window or at 1:1 with panning (the server crops the full frame).

export class Viewer {
  constructor(el, canvasA, canvasB, divider) {
    Object.assign(this, { el, canvasA, canvasB, divider });
    this.split = 0.5;
    this.ab = false;
    this.toggle = false;
    this.showingB = false;
    this.zoomed = false;
    this.frames = { a: null, b: null };
    this.onDividerMove = null;
    this.dragDivider();
  }

  // The preview width fitted to the area (device pixels), never wider than the image.
  fitWidth(imageW, imageH) {
    const dpr = window.devicePixelRatio || 1;
    const w = this.el.clientWidth * dpr, h = this.el.clientHeight * dpr;
    return Math.max(16, Math.min(imageW, Math.floor(Math.min(w, h * imageW / imageH))));
  }

  // The 1:1 viewport in image pixels (CSS pixel = image pixel).
  viewport() { return { w: Math.max(1, this.el.clientWidth), h: Math.max(1, this.el.clientHeight) }; }

  show(view, frame) {
    const canvas = view === 'a' ? this.canvasA : this.canvasB;
    if (canvas.width !== frame.width || canvas.height !== frame.height) {
      canvas.width = frame.width;
      canvas.height = frame.height;
    }
    const image = new ImageData(frame.bytes, frame.width, frame.height);
    canvas.getContext('2d').putImageData(image, 0, 0);
    this.frames[view] = image;
    this.layout();
  }

  layout() {
    const W = this.el.clientWidth, H = this.el.clientHeight;
    for (const canvas of [this.canvasA, this.canvasB]) {
      if (!canvas.width) continue;
      let cw = canvas.width, ch = canvas.height;
      if (!this.zoomed) {
        const s = Math.min(W / cw, H / ch);
        cw *= s; ch *= s;
      }
      Object.assign(canvas.style, { width: `${cw}px`, height: `${ch}px`, left: `${(W - cw) / 2}px`, top: `${(H - ch) / 2}px` });
    }
    this.canvasB.hidden = !this.ab || (this.toggle && !this.showingB);
    this.divider.hidden = !this.ab || this.toggle;
    const r = this.canvasA.getBoundingClientRect(), v = this.el.getBoundingClientRect();
    const x = r.left - v.left + this.split * r.width;
    this.divider.style.left = `${x}px`;
    this.divider.setAttribute('aria-valuenow', Math.round(this.split * 100));
    this.canvasB.style.clipPath = this.ab && !this.toggle ? `inset(0 0 0 ${this.split * 100}%)` : 'none';
    document.getElementById('badge-a').hidden = !this.ab || (this.toggle && this.showingB);
    document.getElementById('badge-b').hidden = !this.ab || (this.toggle && !this.showingB);
  }

  setSplit(s) {
    this.split = Math.min(1, Math.max(0, s));
    this.layout();
  }

  dragDivider() {
    let dragging = false;
    this.divider.addEventListener('pointerdown', e => { dragging = true; this.divider.setPointerCapture(e.pointerId); });
    this.divider.addEventListener('pointerup', () => { dragging = false; });
    this.divider.addEventListener('pointermove', e => {
      if (!dragging) return;
      const r = this.canvasA.getBoundingClientRect();
      this.setSplit((e.clientX - r.left) / r.width);
    });
    this.divider.addEventListener('keydown', e => {
      if (e.key === 'ArrowLeft') this.setSplit(this.split - 0.02);
      else if (e.key === 'ArrowRight') this.setSplit(this.split + 0.02);
      else return;
      e.preventDefault();
    });
  }

  // Which view and canvas pixel is under the pointer; null outside the image.
  hit(clientX, clientY) {
    const r = this.canvasA.getBoundingClientRect();
    if (!this.canvasA.width || clientX < r.left || clientY < r.top || clientX >= r.right || clientY >= r.bottom) return null;
    const fx = (clientX - r.left) / r.width, fy = (clientY - r.top) / r.height;
    const view = this.ab && (this.toggle ? this.showingB : fx >= this.split) ? 'b' : 'a';
    return { view, fx, fy, px: Math.floor(fx * this.canvasA.width), py: Math.floor(fy * this.canvasA.height) };
  }

  outputAt(view, px, py) {
    const f = this.frames[view];
    if (!f || px >= f.width || py >= f.height) return null;
    const i = (py * f.width + px) * 4;
    return [f.data[i], f.data[i + 1], f.data[i + 2]];
  }
}
