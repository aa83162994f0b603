import { state } from './state.js';
import { apiFetch } from './api.js';
import { jumpToFrame } from './player.js';
import { labelFrame, labelIntervention } from './labelling.js';

// Virtualized carousel: only a window of cards around the active frame is
// rendered; spacers pad the track so layout/scrolling behave like the full
// carousel. This keeps 1000-frame trajectories from creating 1000+ DOM nodes.
const CAROUSEL_RADIUS = 40;
const CAROUSEL_CARD_STEP = 192; // 160px card + 8px padding each side + 16px gap

const carouselTrack = document.getElementById('carousel-track');

let carouselFrames = [];
let carouselWindowStart = 0;

function windowStartFor(index, total) {
    return Math.min(Math.max(0, index - CAROUSEL_RADIUS), Math.max(0, total - 2 * CAROUSEL_RADIUS - 1));
}

function makeSpacer(count) {
    const spacer = document.createElement('div');
    spacer.className = 'carousel-spacer';
    spacer.style.flexBasis = `${count * CAROUSEL_CARD_STEP}px`;
    return spacer;
}

function buildFrameCard(frameUrl, index) {
    const filename = state.activeVideo ? state.activeVideo.filename : null;
    const label = state.labels[filename];

    const card = document.createElement('div');
    card.className = 'frame-card';
    card.dataset.index = index;

    const isActiveSuccess = label && label.task_completed === 1 && label.marked_timestep === index;
    const isActiveFail = label && label.task_completed === 0 && label.marked_timestep === index;
    const isActiveIntervention = label && label.expert_segment && label.expert_segment[index];

    let framesHtml = '';
    if (Array.isArray(frameUrl)) {
        framesHtml = '<div class="frame-stack">';
        frameUrl.forEach((vUrl, vIdx) => {
            const vpName = state.viewpointNames[vIdx] || `View ${vIdx}`;
            framesHtml += `
                <div class="view-caption">${vpName}</div>
                <div class="view-container">
                    <img src="${vUrl}" alt="View ${vIdx}">
                </div>
            `;
        });
        framesHtml += '</div>';
    } else {
        framesHtml = `<img src="${frameUrl}" alt="Frame ${index}">`;
    }

    card.innerHTML = `
        ${framesHtml}
        <div class="labeller-btns">
            <button class="btn btn-up ${isActiveSuccess ? 'active' : ''}" title="Success">✓</button>
            <button class="btn btn-down ${isActiveFail ? 'active' : ''}" title="Failure">✗</button>
            <button class="btn btn-star ${isActiveIntervention ? 'active' : ''}" title="Expert Intervention">★</button>
        </div>
    `;

    const upBtn = card.querySelector('.btn-up');
    const downBtn = card.querySelector('.btn-down');
    const starBtn = card.querySelector('.btn-star');

    upBtn.onclick = (e) => {
        e.stopPropagation();
        labelFrame(filename, index, true, upBtn);
    };
    downBtn.onclick = (e) => {
        e.stopPropagation();
        labelFrame(filename, index, false, downBtn);
    };
    starBtn.onclick = (e) => {
        e.stopPropagation();
        labelIntervention(filename, index, starBtn);
    };
    card.onclick = () => jumpToFrame(index);
    return card;
}

// Repaint the current window from state (frame labels are derived from
// state.labels, so this doubles as the carousel refresh after mutations).
export function repaintCarousel() {
    const frames = carouselFrames;
    if (frames.length === 0) return;

    const end = Math.min(frames.length, carouselWindowStart + 2 * CAROUSEL_RADIUS + 1);
    carouselTrack.innerHTML = '';

    if (carouselWindowStart > 0) {
        carouselTrack.appendChild(makeSpacer(carouselWindowStart));
    }
    for (let i = carouselWindowStart; i < end; i++) {
        carouselTrack.appendChild(buildFrameCard(frames[i], i));
    }
    if (end < frames.length) {
        carouselTrack.appendChild(makeSpacer(frames.length - end));
    }
}

export function centerCarouselOn(index) {
    const total = carouselFrames.length;
    if (total === 0) return;
    const start = windowStartFor(index, total);
    if (start !== carouselWindowStart) {
        carouselWindowStart = start;
        repaintCarousel();
    }
}

export function scrollToFrame(index) {
    centerCarouselOn(index);
    let target = null;
    carouselTrack.querySelectorAll('.frame-card').forEach(c => {
        if (Number(c.dataset.index) === index) target = c;
    });
    if (!target) target = carouselTrack.querySelector('.frame-card:last-child');
    if (target) {
        target.scrollIntoView({ behavior: 'auto', inline: 'center', block: 'nearest' });
    }
}

export function renderCarousel(frames) {
    carouselFrames = frames;
    if (frames.length === 0) {
        carouselTrack.innerHTML = '<div class="error">No frames available</div>';
        return;
    }
    carouselWindowStart = windowStartFor(state.currentTimestep, frames.length);
    repaintCarousel();
}

export function clearCarousel() {
    carouselFrames = [];
    carouselWindowStart = 0;
    carouselTrack.innerHTML = '';
}

export async function fetchFrames(filename) {
    carouselTrack.innerHTML = '<div class="loader">Extracting frames...</div>';
    try {
        const data = await apiFetch(`/api/video/${filename}/frames`);
        renderCarousel(data.frames);
    } catch (error) {
        carouselTrack.innerHTML = '<div class="error">Error loading frames</div>';
    }
}
