import { state } from './state.js';
import { apiFetch, postJson } from './api.js';
import { refreshLabels } from './labelling.js';
import { renderTimeline } from './render.js';

const actionSection = document.getElementById('action-section');
const actionControlsGrid = document.getElementById('action-controls-grid');
const actionTimestepLabel = document.getElementById('action-timestep-label');
const saveActionBtn = document.getElementById('save-action-btn');

let currentAction = null;
let actionFetchTimer = null;

// Debounced so that rapid scrubbing across frames only triggers one network
// request once the user settles on a timestep.
export function scheduleActionFetch(filename, timestep) {
    clearTimeout(actionFetchTimer);
    actionFetchTimer = setTimeout(() => fetchAction(filename, timestep), 150);
}

async function fetchAction(filename, timestep) {
    clearTimeout(actionFetchTimer);
    try {
        const data = await apiFetch(`/api/video/${filename}/action/${timestep}`);
        if (data.action) {
            currentAction = data.action;
            actionSection.classList.remove('hidden-element');
            actionTimestepLabel.textContent = `T=${timestep}`;
            renderActionControls();
        } else {
            actionSection.classList.add('hidden-element');
        }
    } catch (error) {
        actionSection.classList.add('hidden-element');
    }
}

function renderActionControls() {
    actionControlsGrid.innerHTML = '';
    if (!currentAction) return;

    currentAction.forEach((val, i) => {
        const controlItem = document.createElement('div');
        controlItem.className = 'action-control-item';

        const labelRow = document.createElement('div');
        labelRow.className = 'action-control-label';
        labelRow.innerHTML = `<span>Dim ${i}</span><span id="action-val-${i}">${val.toFixed(4)}</span>`;

        const sliderRow = document.createElement('div');
        sliderRow.className = 'action-slider-row';

        const slider = document.createElement('input');
        slider.type = 'range';
        slider.min = '-2';
        slider.max = '2';
        slider.step = '0.001';
        slider.value = val;

        const numInput = document.createElement('input');
        numInput.type = 'number';
        numInput.className = 'action-value-input';
        numInput.step = '0.001';
        numInput.value = val.toFixed(4);

        const setValue = (v) => {
            currentAction[i] = v;
            document.getElementById(`action-val-${i}`).textContent = v.toFixed(4);
        };
        slider.oninput = () => {
            numInput.value = parseFloat(slider.value).toFixed(4);
            setValue(parseFloat(slider.value));
        };
        numInput.oninput = () => {
            slider.value = numInput.value;
            setValue(parseFloat(numInput.value));
        };

        sliderRow.append(slider, numInput);
        controlItem.append(labelRow, sliderRow);
        actionControlsGrid.appendChild(controlItem);
    });
}

export function initActions() {
    saveActionBtn.onclick = async () => {
        const video = state.activeVideo;
        if (!video || !currentAction) return;

        const data = await postJson(`/api/video/${video.filename}/action/${state.currentTimestep}`, {
            filename: video.filename,
            timestep: state.currentTimestep,
            action: currentAction,
        }, saveActionBtn);

        if (data.status === 'ok') {
            await refreshLabels();
            renderTimeline(video.frames, video.filename);

            saveActionBtn.textContent = 'Saved! ✓';
            setTimeout(() => { saveActionBtn.textContent = 'Save Action'; }, 2000);
        }
    };
}
