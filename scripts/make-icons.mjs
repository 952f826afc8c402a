// Renders public/icon.svg into the PNG icons browsers and phones ask for, with the system
// Chromium (no image library needed). Run once after changing the SVG, and commit the output:
//   node scripts/make-icons.mjs
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';

const PUBLIC = path.resolve('public');
const source = fs.readFileSync(path.join(PUBLIC, 'icon.svg'), 'utf8');

/**
 * The mark on a square that fills the canvas: phones cut their own shape out of it (iOS rounds
 * the corners, Android masks to a circle or squircle), so there must be no transparent corners,
 * and the mark must stay inside the central 80 % circle (it does at scale 1: ~190 of 205 px).
 */
function fullBleed(scale) {
  return source
    .replace('rx="116"', 'rx="0"')
    .replace('<g id="mark"', `<g id="mark" transform="translate(256 256) scale(${scale}) translate(-256 -256)"`);
}

const TARGETS = [
  { file: 'icons/icon-16.png', size: 16, svg: source },
  { file: 'icons/icon-32.png', size: 32, svg: source },
  { file: 'icons/icon-48.png', size: 48, svg: source },
  { file: 'icons/icon-192.png', size: 192, svg: source },
  { file: 'icons/icon-512.png', size: 512, svg: source },
  { file: 'icons/icon-maskable-512.png', size: 512, svg: fullBleed(0.9) },
  { file: 'apple-touch-icon.png', size: 180, svg: fullBleed(0.95) },
];

/** An .ico holding PNG images (supported everywhere since Windows Vista). */
function ico(images) {
  const header = Buffer.alloc(6 + 16 * images.length);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(images.length, 4);
  let offset = header.length;
  images.forEach(({ size, png }, i) => {
    const entry = 6 + 16 * i;
    header.writeUInt8(size >= 256 ? 0 : size, entry);
    header.writeUInt8(size >= 256 ? 0 : size, entry + 1);
    header.writeUInt16LE(1, entry + 4);
    header.writeUInt16LE(32, entry + 6);
    header.writeUInt32LE(png.length, entry + 8);
    header.writeUInt32LE(offset, entry + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...images.map((i) => i.png)]);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  const rendered = new Map();
  for (const { file, size, svg } of TARGETS) {
    await page.setViewportSize({ width: size, height: size });
    const sized = svg.replace('<svg ', `<svg width="${size}" height="${size}" `);
    await page.setContent(`<html><body style="margin:0;background:transparent">${sized}</body></html>`);
    const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
    fs.writeFileSync(path.join(PUBLIC, file), png);
    rendered.set(file, png);
    console.log(`${file} ${size}×${size} ${png.length} bytes`);
  }
  const favicon = [16, 32, 48].map((size) => ({ size, png: rendered.get(`icons/icon-${size}.png`) }));
  fs.writeFileSync(path.join(PUBLIC, 'favicon.ico'), ico(favicon));
  console.log('favicon.ico 16, 32, 48');
} finally {
  await browser.close();
}
