const errorContainer = document.getElementById('error-notification-container');

export function showError(message) {
    const notification = document.createElement('div');
    notification.className = 'error-notification';

    const icon = document.createElement('span');
    icon.textContent = '⚠️';
    const text = document.createElement('span');
    text.textContent = message;
    notification.append(icon, text);

    errorContainer.appendChild(notification);
    setTimeout(() => {
        notification.classList.add('fade-out');
        setTimeout(() => notification.remove(), 500);
    }, 5000);
}

export async function apiFetch(url, options = {}, btn = null) {
    if (btn) btn.classList.add('loading');
    try {
        const response = await fetch(url, options);
        if (!response.ok) {
            const errorData = await response.json().catch(() => ({}));
            throw new Error(errorData.error || `HTTP error! status: ${response.status}`);
        }
        return await response.json();
    } catch (error) {
        console.error(`API Error (${url}):`, error);
        showError(error.message);
        throw error;
    } finally {
        if (btn) btn.classList.remove('loading');
    }
}

export function postJson(url, body = {}, btn = null) {
    return apiFetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body)
    }, btn);
}
