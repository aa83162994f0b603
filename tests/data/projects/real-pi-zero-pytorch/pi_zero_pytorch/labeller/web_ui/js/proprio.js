import { state } from './state.js';
import { apiFetch } from './api.js';
import { renderChart } from './charts.js';

const proprioSection = document.getElementById('proprio-section');
const proprioChartContainer = document.getElementById('proprio-chart-container');
const proprioDimLabel = document.getElementById('proprio-dim-label');

let proprioData = null;   // 2D array [T, D]
let proprioNumDims = 0;
let proprioDimNames = [];
let currentProprioIdx = 0;

function updateProprioLabel() {
    const dimName = proprioDimNames[currentProprioIdx] || `Dim ${currentProprioIdx}`;
    proprioDimLabel.textContent = `${dimName} (${currentProprioIdx + 1}/${proprioNumDims})`;
}

function renderProprioChart() {
    if (!proprioData || proprioNumDims === 0) return;

    const dimData = proprioData.map(t => t[currentProprioIdx]);
    const totalLength = state.activeVideo ? state.activeVideo.frames : dimData.length;

    renderChart(proprioChartContainer, dimData, proprioDimNames[currentProprioIdx] || 'Joint', 'proprio', totalLength);
    proprioChartContainer.classList.add('active');
}

export async function fetchProprio(filename) {
    try {
        const data = await apiFetch(`/api/video/${filename}/proprio`);
        if (data.proprio && data.num_dims > 0) {
            proprioData = data.proprio;
            proprioNumDims = data.num_dims;
            proprioDimNames = data.dim_names;
            currentProprioIdx = 0;

            proprioSection.classList.remove('hidden-element');
            updateProprioLabel();
            renderProprioChart();
        } else {
            proprioData = null;
            proprioSection.classList.add('hidden-element');
        }
    } catch (error) {
        proprioData = null;
        proprioSection.classList.add('hidden-element');
    }
}

function stepDim(delta) {
    if (proprioNumDims === 0) return;
    currentProprioIdx = (currentProprioIdx + delta + proprioNumDims) % proprioNumDims;
    updateProprioLabel();
    renderProprioChart();
}

export function initProprio() {
    document.getElementById('proprio-prev').onclick = () => stepDim(-1);
    document.getElementById('proprio-next').onclick = () => stepDim(1);
}
