import { state, activeLabel } from './state.js';
import { apiFetch, postJson } from './api.js';
import { renderAll, renderTimeline } from './render.js';
import { renderCharts } from './charts.js';

const penaltyInput = document.getElementById('fail-penalty-input');
const calcReturnsBtn = document.getElementById('calc-returns-btn');
const calcValueBtn = document.getElementById('calc-value-btn');
const calcAdvBtn = document.getElementById('calc-advantage-btn');
const calcStatsBtn = document.getElementById('calc-stats-btn');
const binarizeBtn = document.getElementById('binarize-btn');
const statsResult = document.getElementById('stats-result');
const gaeGammaInput = document.getElementById('gae-gamma-input');
const gaeLamInput = document.getElementById('gae-lam-input');
const invalidateBtn = document.getElementById('invalidate-btn');
const invalidateCutoffInput = document.getElementById('invalidate-cutoff-input');

// Server state is authoritative: every mutation refetches labels and
// re-renders, instead of patching client-side copies.
export async function refreshLabels() {
    state.labels = await apiFetch('/api/labels');
}

export async function labelFrame(filename, timestep, success, btn = null) {
    const data = await postJson('/api/label', {
        filename,
        timestep,
        success,
        penalty: parseFloat(penaltyInput.value),
    }, btn);
    if (data.status === 'ok') {
        await refreshLabels();
        renderAll();
    }
}

export async function labelIntervention(filename, timestep, btn = null) {
    const data = await postJson('/api/label/intervention', { filename, timestep }, btn);
    if (data.status === 'ok') {
        await refreshLabels();
        renderAll();
    }
}

export async function assignTask(taskId, btn = null) {
    if (!state.activeVideo) return;
    const data = await postJson('/api/episode/task', {
        filename: state.activeVideo.filename,
        task_id: taskId,
    }, btn);
    if (data.status === 'ok') {
        await refreshLabels();
        // Task max duration normalizes returns, so recompute if already labelled
        const label = activeLabel();
        if (label && label.marked_timestep !== -1) {
            await calculateReturns(state.activeVideo.filename);
        } else {
            renderAll();
        }
    }
}

export async function calculateReturns(filename, btn = null) {
    const data = await postJson('/api/returns/calculate', { filename }, btn || calcReturnsBtn);
    if (data.status === 'ok') {
        await refreshLabels();
        renderAll();
    }
}

async function calculateValue(filename) {
    const data = await postJson('/api/episode/value/calculate', { filename }, calcValueBtn);
    if (data.status === 'ok') {
        await refreshLabels();
        renderAll();
        if (state.activeVideo && state.activeVideo.filename === filename) {
            calcAdvBtn.disabled = false;
        }
    }
}

async function calculateAdvantage(filename) {
    const data = await postJson('/api/episode/advantage/calculate', {
        filename,
        gamma: parseFloat(gaeGammaInput.value),
        lam: parseFloat(gaeLamInput.value),
    }, calcAdvBtn);
    if (data.status === 'ok') {
        await refreshLabels();
        renderAll();
    }
}

function setupSync(input, slider) {
    input.oninput = () => { slider.value = input.value; };
    slider.oninput = () => { input.value = slider.value; };
}

export function initLabelling() {
    // A default SmallValueNetwork is always initialized server-side, so value
    // estimation is available even before any network has been trained.
    calcValueBtn.disabled = false;

    setupSync(penaltyInput, document.getElementById('fail-penalty-slider'));
    setupSync(gaeGammaInput, document.getElementById('gae-gamma-slider'));
    setupSync(gaeLamInput, document.getElementById('gae-lam-slider'));
    setupSync(invalidateCutoffInput, document.getElementById('invalidate-cutoff-slider'));

    document.getElementById('reset-btn').onclick = async () => {
        if (!state.activeVideo) return;
        const data = await postJson('/api/label/reset', { filename: state.activeVideo.filename }, document.getElementById('reset-btn'));
        if (data.status === 'ok') {
            await refreshLabels();
            renderAll();
        }
    };

    calcReturnsBtn.onclick = () => {
        if (state.activeVideo) calculateReturns(state.activeVideo.filename);
    };
    calcValueBtn.onclick = () => {
        if (state.activeVideo) calculateValue(state.activeVideo.filename);
    };
    calcAdvBtn.onclick = () => {
        if (state.activeVideo) calculateAdvantage(state.activeVideo.filename);
    };

    calcStatsBtn.onclick = async () => {
        statsResult.classList.remove('hidden-element');
        const percentile = parseFloat(document.getElementById('stats-quantile-input').value);
        const data = await postJson('/api/advantage/stats', { percentile }, calcStatsBtn);
        if (data.status === 'ok') {
            statsResult.textContent = `Cutoff (${data.count} pts): ${data.cutoff.toFixed(6)}`;
            state.currentCutoff = data.cutoff;
        }
    };

    binarizeBtn.onclick = async () => {
        statsResult.classList.remove('hidden-element');
        if (!state.activeVideo || state.currentCutoff === null) return;
        const data = await postJson('/api/advantage/binarize', {
            filename: state.activeVideo.filename,
            cutoff: state.currentCutoff,
        }, binarizeBtn);
        if (data.status === 'ok') {
            await refreshLabels();
            renderAll();
            statsResult.textContent = `Binarized with cutoff: ${state.currentCutoff.toFixed(6)}`;
        }
    };

    invalidateBtn.onclick = async () => {
        if (!state.activeVideo) return;
        const data = await postJson('/api/episode/invalidate', {
            filename: state.activeVideo.filename,
            cutoff: parseFloat(invalidateCutoffInput.value),
        }, invalidateBtn);
        if (data.status === 'ok') {
            await refreshLabels();
            renderTimeline(state.activeVideo.frames, state.activeVideo.filename);
            renderCharts(state.activeVideo.filename);
        }
    };

    document.getElementById('export-btn').onclick = () => {
        const a = document.createElement('a');
        a.href = '/api/export';
        a.download = 'labels_export.zip';
        document.body.appendChild(a);
        a.click();
        a.remove();
    };
}
