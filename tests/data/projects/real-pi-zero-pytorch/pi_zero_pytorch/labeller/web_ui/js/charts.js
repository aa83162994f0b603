import { state } from './state.js';
import { jumpToFrame } from './player.js';

const valueChartContainer = document.getElementById('value-chart-container');
const advantageChartContainer = document.getElementById('advantage-chart-container');
const chartTooltip = document.getElementById('chart-tooltip');

const SVG_NS = 'http://www.w3.org/2000/svg';
// Long trajectories are downsampled to a min/max envelope for rendering only;
// tooltips and click-to-jump keep using the full-resolution points array.
const MAX_CHART_POINTS = 200;

function showGlobalTooltip(e, frameIdx, value, title) {
    chartTooltip.style.display = 'block';
    chartTooltip.style.left = `${e.clientX + 15}px`;
    chartTooltip.style.top = `${e.clientY - 40}px`;
    chartTooltip.innerHTML = `<strong>Frame ${frameIdx}</strong><br/>${title}: ${value.toFixed(4)}`;
}

function hideTooltipAndGuides() {
    chartTooltip.style.display = 'none';
    document.querySelectorAll('.chart-guide').forEach(g => g.style.display = 'none');
}

function syncGuides(frameIdx, width, totalFrames) {
    const x = (frameIdx / (totalFrames - 1)) * width;
    document.querySelectorAll('.chart-guide').forEach(g => {
        g.setAttribute('x1', x);
        g.setAttribute('x2', x);
        g.style.display = 'block';
    });
}

function svgEl(tag, attrs) {
    const el = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    return el;
}

function envelopeIndices(points) {
    if (points.length <= MAX_CHART_POINTS) return null;
    const renderSet = new Set();
    const bucket = points.length / MAX_CHART_POINTS;
    for (let b = 0; b < MAX_CHART_POINTS; b++) {
        const from = Math.floor(b * bucket);
        const to = Math.min(points.length, Math.floor((b + 1) * bucket));
        let minI = -1, maxI = -1;
        for (let i = from; i < to; i++) {
            const p = points[i];
            if (!p) continue;
            if (minI === -1 || p.value < points[minI].value) minI = i;
            if (maxI === -1 || p.value > points[maxI].value) maxI = i;
        }
        if (minI !== -1) renderSet.add(minI);
        if (maxI !== -1 && maxI !== minI) renderSet.add(maxI);
    }
    for (let i = points.length - 1; i >= 0; i--) {
        if (points[i]) { renderSet.add(i); break; }
    }
    return renderSet;
}

export function renderChart(container, data, title, type, totalLength) {
    const validData = (data || []).filter(v => v !== null && !isNaN(v));
    if (validData.length === 0) {
        container.innerHTML = '';
        container.classList.remove('active');
        container.style.display = 'none';
        return;
    }

    container.classList.add('active');
    container.style.display = 'block';
    container.innerHTML = `<div class="chart-title">${title}</div>`;

    const min = Math.min(...validData);
    const max = Math.max(...validData);
    const range = max - min || 0.1;

    const containerWidth = container.clientWidth || 800;
    const width = Math.max(100, containerWidth - 80);
    const height = container.clientHeight || 100;

    // Map index to X against the full episode length so charts align with the timeline.
    const denom = (totalLength && totalLength > 1) ? (totalLength - 1) : (data.length - 1 || 1);

    const points = data.map((v, i) => {
        if (v === null || isNaN(v)) return null;
        const x = (i / denom) * width;
        const y = height - ((v - min) / range) * (height - 20) - 10;
        if (isNaN(x) || isNaN(y)) return null;
        return { x, y, value: v, index: i };
    });

    const svg = svgEl('svg', {
        class: 'chart-svg',
        viewBox: `0 0 ${width} ${height}`,
        preserveAspectRatio: 'none',
    });

    svg.appendChild(svgEl('line', {
        class: 'chart-axis',
        x1: 0, y1: height - 1, x2: width, y2: height - 1,
    }));

    if (type === 'advantage') {
        const zeroY = height - ((0 - min) / range) * (height - 20) - 10;
        if (!isNaN(zeroY) && zeroY >= 0 && zeroY <= height) {
            svg.appendChild(svgEl('line', {
                x1: 0, y1: zeroY, x2: width, y2: zeroY,
                stroke: 'rgba(255, 255, 255, 0.15)',
                'stroke-dasharray': '4 4',
            }));
        }
    }

    const renderSet = envelopeIndices(points);

    // Group points into continuous segments (islands around missing values)
    const segments = [];
    let currentSegment = [];
    points.forEach((p, i) => {
        if (p && (!renderSet || renderSet.has(i))) {
            currentSegment.push(p);
        } else if (currentSegment.length > 0) {
            segments.push(currentSegment);
            currentSegment = [];
        }
    });
    if (currentSegment.length > 0) segments.push(currentSegment);

    const color = type === 'value' ? '#4285f4' : type === 'advantage' ? '#ea4335' : '#34a853';

    segments.forEach(seg => {
        if (seg.length < 1) return;
        const pointsStr = seg.map(p => `${p.x},${p.y}`).join(' ');

        if (seg.length > 1) {
            const first = seg[0];
            const last = seg[seg.length - 1];
            svg.appendChild(svgEl('polyline', {
                class: `chart-area-${type}`,
                points: `${first.x},${height} ${pointsStr} ${last.x},${height}`,
            }));
            svg.appendChild(svgEl('polyline', {
                class: `chart-line-${type}`,
                points: pointsStr,
            }));
            seg.forEach(p => {
                svg.appendChild(svgEl('circle', {
                    class: `chart-line-${type}`,
                    cx: p.x, cy: p.y, r: 2.5,
                    fill: color, stroke: '#fff', 'stroke-width': 0.5,
                }));
            });
        } else {
            svg.appendChild(svgEl('circle', {
                class: `chart-line-${type}`,
                cx: seg[0].x, cy: seg[0].y, r: 3.0,
                fill: color, stroke: '#fff', 'stroke-width': 1,
            }));
        }
    });

    svg.appendChild(svgEl('line', {
        id: `${type}-guide`,
        class: 'chart-guide',
        x1: 0, y1: 0, x2: 0, y2: height,
    }));

    container.appendChild(svg);

    const frameAtEvent = (e) => {
        const rect = svg.getBoundingClientRect();
        const x = e.clientX - rect.left;
        return Math.round((x / width) * (data.length - 1));
    };

    svg.addEventListener('mousemove', (e) => {
        const frameIdx = frameAtEvent(e);
        if (frameIdx >= 0 && frameIdx < data.length) {
            const p = points[frameIdx];
            if (p) {
                showGlobalTooltip(e, frameIdx, p.value, title);
                syncGuides(frameIdx, width, data.length);
            }
        }
    });
    svg.addEventListener('mouseleave', hideTooltipAndGuides);
    container.onclick = (e) => {
        const frameIdx = frameAtEvent(e);
        if (frameIdx >= 0 && frameIdx < data.length) jumpToFrame(frameIdx);
    };
}

export function renderCharts(filename) {
    if (!state.activeVideo || state.activeVideo.filename !== filename) return;
    const info = state.labels[filename];
    if (!info) return;

    renderChart(valueChartContainer, info.value, 'Value', 'value', state.activeVideo.frames);
    renderChart(advantageChartContainer, info.advantages, 'Advantage', 'advantage', state.activeVideo.frames);
}
